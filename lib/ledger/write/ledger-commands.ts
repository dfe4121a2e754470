import {
  errorOfKind,
  NotCommittedError,
  OutcomeUnknownError,
  PlatformError,
  ScriptReadsChangedError,
} from '../../errors/index.js';
import { isDryRun, type LedgerOperation, operationRequest } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import type { ScriptStateReads } from '../domain/script-state.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import type { IntentSink, LedgerRelay, RelayAnswer } from './relay.js';

/** What a write answers, however it was committed. */
export type CommandOutcome =
  /** `inOrder`: nothing it moved was back-dated, so its effective volumes are its commit-order ones. */
  | { kind: 'committed'; result: unknown; logId: number; inOrder?: boolean }
  | { kind: 'replayed'; result: unknown; logId?: number }
  | { kind: 'dry-run'; result: unknown };

export interface LedgerCommandsOptions {
  writer: LedgerWriter;
  reads: TransactionReads;
  /** Group commit: without a relay every write commits directly (and retries on contention). */
  relay?: LedgerRelay;
  /**
   * The embedded engine (write/embedded.ts): every write but a dry run is committed by this process's group
   * commit, alone or with whatever else is waiting; the relay is then unused.
   */
  embedded?: IntentSink;
  /** What a script's plan reads (current state); without it, scripts are refused. */
  scriptState?: (ledger: LedgerRecord) => ScriptStateReads;
  now?: () => number;
}

/** Plans of one script write before its conflict is answered. */
const SCRIPT_PLAN_ATTEMPTS = 3;
/**
 * Concurrent commits a direct write meets before it hands itself to the sequenced writer: the first. A second
 * direct attempt would race the same writers again (a snapshot read and a commit each), and a ledger busy enough
 * to meet one is what group commit is for; a single client never meets one.
 */
const CONTENTION_BEFORE_RELAY = 1;
/**
 * After a relayed answer, a container relays at least this long (or while the lease it saw lasts) without trying a
 * direct write first. Counted from the answer, not the request: under load an answer can take longer than this, and
 * a direct attempt then would only race the writer that is leading (a snapshot read and a commit that fails).
 */
const RELAY_STICKINESS_MS = 1_000;

/**
 * Every ledger write of a request, in one of the two modes (docs/data-model.md, "Two write modes"): committed
 * directly by the request when the ledger is quiet — two round trips —, or relayed to the ledger's sequenced
 * writer when it is busy (a live lease on HEAD, or a direct write that met concurrent commits), which commits
 * many requests per TransactWriteItems. The answer is the same either way.
 */
export class LedgerCommands {
  private readonly now: () => number;
  private readonly relayUntil = new Map<string, number>();

  constructor(private readonly options: LedgerCommandsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Operations handed to the embedded engine together, in order, decided in as few batches as fit (a non-atomic
   * bulk): with `stopOnFailure`, those after the first refused one are skipped. Undefined without the engine.
   */
  async executeInOrder(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
    options: { stopOnFailure: boolean },
  ): Promise<GroupOutcome[] | undefined> {
    const { embedded } = this.options;
    if (!embedded?.submitGroup || operations.some(isDryRun)) return undefined;
    const { reqIds, answers } = embedded.submitGroup(ledger, operations, options);
    const settled = await answers;
    return settled.map((answer) => groupOutcomeOf(answer, (reqId) => reqIds.indexOf(reqId)));
  }

  /**
   * Operations handed to the embedded engine as one atomic group: decided all-or-nothing in one batch and
   * committed with it. Undefined without the engine, or when the group cannot fit one commit, staged or not (then
   * nothing was written and the caller commits it another way).
   */
  async executeAtomic(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
  ): Promise<GroupOutcome[] | undefined> {
    const { embedded } = this.options;
    if (!embedded?.submitAtomic || operations.some(isDryRun)) return undefined;
    const { reqIds, answers } = embedded.submitAtomic(ledger, operations);
    const settled = await answers;
    if (settled.some((a) => a.status === 'too-large')) return undefined;
    if (settled.some((a) => a.status === 'unknown'))
      throw new OutcomeUnknownError(
        'no answer from the ledger writer in time: the bulk may or may not be committed (retry with the same Idempotency-Key)',
      );
    return settled.map((answer) => groupOutcomeOf(answer, (reqId) => reqIds.indexOf(reqId)));
  }

  /** Whether busy writes can be relayed to a sequenced writer (group commit): only then do concurrent writes of one ledger gain anything. */
  get groupCommits(): boolean {
    return this.options.relay !== undefined || this.options.embedded !== undefined;
  }

  /**
   * A script whose decision needed what its plan had not read (the ledger changed in between) is planned and
   * written again, a few times; then its 409 is answered.
   */
  async execute(ledger: LedgerRecord, operation: LedgerOperation): Promise<CommandOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.executeOnce(ledger, operation);
      } catch (err) {
        if (!(err instanceof ScriptReadsChangedError) || attempt >= SCRIPT_PLAN_ATTEMPTS) throw err;
      }
    }
  }

  private async executeOnce(
    ledger: LedgerRecord,
    operation: LedgerOperation,
  ): Promise<CommandOutcome> {
    const { relay, embedded } = this.options;
    if (embedded && !isDryRun(operation)) return answerOf(await embedded.submit(ledger, operation));
    if (relay && !isDryRun(operation) && (this.relayUntil.get(relayKey(ledger)) ?? 0) > this.now())
      return this.relayed(relay, ledger, operation);
    const request = await operationRequest(
      ledger,
      operation,
      async (id) => (await this.options.reads.get(ledger, id))?.tx,
      this.options.scriptState?.(ledger),
    );
    if (!relay || isDryRun(operation)) return direct(await this.options.writer.write(request));
    const outcome = await this.options.writer.writeOrRelay(request, CONTENTION_BEFORE_RELAY);
    if (!('relay' in outcome)) return direct(outcome);
    // A live lease says how long the writer is known to lead: no direct attempt (a snapshot read) before then.
    return this.relayed(relay, ledger, operation, outcome.untilMs);
  }

  private async relayed(
    relay: LedgerRelay,
    ledger: LedgerRecord,
    operation: LedgerOperation,
    ledUntilMs?: number,
  ): Promise<CommandOutcome> {
    if (this.relayUntil.size > 10_000) this.relayUntil.clear();
    const key = relayKey(ledger);
    const stickUntil = (atMs: number) =>
      this.relayUntil.set(
        key,
        Math.max(atMs + RELAY_STICKINESS_MS, ledUntilMs ?? 0, this.relayUntil.get(key) ?? 0),
      );
    stickUntil(this.now());
    const answer = await relay.submit(ledger, operation);
    stickUntil(this.now());
    return answerOf(answer);
  }
}

/** A sequenced writer's answer as the request's outcome, or its error. */
function answerOf(answer: RelayAnswer): CommandOutcome {
  switch (answer.status) {
    case 'committed':
      return { ...answer.outcomes[0]! };
    case 'refused':
      throw errorOfKind(answer.error.kind, answer.error.message);
    case 'expired':
      throw new NotCommittedError(
        'the ledger is too busy: the request was not committed (retry shortly)',
      );
    case 'unknown':
      throw new OutcomeUnknownError(
        'no answer from the ledger writer in time: the request may or may not be committed (retry with the same Idempotency-Key)',
      );
    case 'skipped':
      throw new Error('a write outside any group was skipped');
    case 'too-large':
      throw new Error('a write outside any atomic group was answered too large');
  }
}

/** What became of one operation of an ordered group: its outcome, its error, or skipped after a failed one. */
export type GroupOutcome =
  | { kind: 'done'; outcome: CommandOutcome }
  | { kind: 'failed'; error: PlatformError }
  | { kind: 'skipped'; afterIndex: number };

function groupOutcomeOf(answer: RelayAnswer, failedIndex: (reqId: string) => number): GroupOutcome {
  if (answer.status === 'skipped')
    return { kind: 'skipped', afterIndex: failedIndex(answer.after) };
  try {
    return { kind: 'done', outcome: answerOf(answer) };
  } catch (err) {
    if (err instanceof PlatformError) return { kind: 'failed', error: err };
    throw err;
  }
}

/** Ledgers of two environments may share a name; `\u0000` is in neither an environment id nor a name. */
const relayKey = (ledger: LedgerRecord) => `${ledger.environment}\u0000${ledger.name}`;

function direct(outcome: Awaited<ReturnType<LedgerWriter['write']>>): CommandOutcome {
  return outcome.kind === 'committed'
    ? { kind: 'committed', result: outcome.result, logId: outcome.log.id, inOrder: outcome.inOrder }
    : outcome;
}
