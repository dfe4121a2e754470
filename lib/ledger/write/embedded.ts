import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import type { LedgerOperation } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import { dynamoLedgerTable } from '../store/dynamo-ledger-table.js';
import type { LedgerTable } from '../store/ledger-table.js';
import { BatchPolicy } from './batch-policy.js';
import type { Intent, IntentResult } from './intent.js';
import type { IntentSink, RelayAnswer } from './relay.js';
import { LedgerSequencer, type PreparedBatch } from './sequencer.js';

export interface EmbeddedOptions {
  /** Each environment's document client (the ledger's scope's): a ledger's line commits through its own. */
  clientFor?: (environment: string) => DynamoDBDocumentClient;
  tableFor: (bucket: string) => string;
  /** Each ledger's table as the engine's port; absent: the ledger's table on DynamoDB through `clientFor`. */
  tableOf?: (ledger: LedgerRecord) => LedgerTable;
  logger?: Logger;
  now?: () => number;
  /**
   * Commit as the AWS writer does — new transactions' items and the results written after each commit, HEAD told
   * the batch is settled, one batch at a time — while answering in memory: what the AWS simulation runs.
   */
  writerProtocol?: boolean;
  /** How long a write may wait for its batch before it is answered "not committed" (as a relayed one). */
  deadlineMs?: number;
  /** The most a small batch waits for the rest of a group that is coming back (see `gather`); 0: never. */
  gatherMaxMs?: number;
  /**
   * Awaited after a batch lands and before the next batch's commit is sent (a failure is ignored). The local
   * platform reads its durability barrier here: a read issued then comes before the next commit on DynamoDB Local's
   * one database thread, and the landed batch's answers wait for it rather than for a read queued behind that
   * commit.
   */
  afterLanding?: () => Promise<void>;
  /** Each line's choice between pipelined and gathered batches (batch-policy.ts); the writer's protocol pipelines. */
  batchPolicy?: () => BatchPolicy;
}

/** Intents handed to one batch at most: the sequencer defers what does not fit one TransactWriteItems. */
const MAX_BATCH_INTENTS = 128;
/**
 * Intents a batch ending in atomic groups may grow to with whole groups (its staged commit's size bound,
 * MAX_STAGED_ACTIONS, still applies). The groups' volumes are written once per batch, so larger batches write fewer
 * items per transaction: atomic bulks of 50 any→any from 32 clients measured 849 / 794 tx/s at 1,600 (all 32 bulks in
 * one batch) against 562 / 601 at 640, alternated. A single write waits behind the groups ahead of it either way.
 */
const MAX_GROUP_BATCH_INTENTS = 1_600;
const DEFAULT_DEADLINE_MS = 8_000;
/**
 * A group (a bulk of up to 100 writes) may need several commits: its members get longer, within the 29 s API
 * Gateway gives a request, so a bulk is not cut short by its own size.
 */
const GROUP_DEADLINE_MS = 20_000;
/**
 * Closed-loop requesters come back in groups: a batch's requesters are answered together and send their next
 * writes within a few milliseconds of each other. Committing the first of them alone costs the database a whole
 * commit while the rest queue behind it (measured on DynamoDB Local: batches of 1, 31, 1, 1, 31 at 32 clients). So
 * after a batch lands, a batch under half its size waits for more — at most twice as long as commits take lately
 * (their return trip is the durability read and HTTP, about a commit's time), and never more than this.
 */
const DEFAULT_GATHER_MAX_MS = 50;

/** How a committing batch landed: answered, requests to go first in the next batch, or to be done again. */
type Landed = 'ok' | 'redo' | Waiting[];

interface Flight {
  batch: Waiting[];
  landed: Promise<Landed>;
}

export interface Waiting {
  intent: Intent;
  answer: (result: RelayAnswer) => void;
  /** When it was queued (performance.now()). */
  queuedMs: number;
}

/** One ledger's queue and its sequencer; `running` while a drain loop serves it. */
interface LedgerLine {
  sequencer: LedgerSequencer;
  waiting: Waiting[];
  running: boolean;
  /** Told of every arrival while the loop gathers. */
  arrived?: () => void;
  /** The last batch that landed: how many requests, and when (performance.now()). */
  landed?: { size: number; atMs: number };
  /** How long commits took lately (a moving average), in ms. */
  commitMs: number;
  /** Pipelined or gathered batches, and how many requests a gather waits for. */
  policy: BatchPolicy;
}

/**
 * The ledger's group commit inside one process (the embedded platform, `npm start`): every write of a ledger
 * waits in that ledger's line, and one loop per ledger hands everything waiting to the sequencer — decided in
 * arrival order over its exact in-memory state and committed in one TransactWriteItems — then answers each
 * requester in memory. A write alone is a batch of one; while a batch commits, the next one gathers, and whether
 * it is decided meanwhile or waits for the whole returning group is each line's measured choice (batch-policy.ts).
 * No queue message, no result item, no polling: one DynamoDB request per batch.
 *
 * The protocol is the sequenced writer's (sequencer.ts): every commit is conditional on HEAD's version, so a
 * write committed by anything else (a direct bulk, a mapping change, another process) makes the next commit
 * fail, the sequencer read HEAD again and decide the batch again.
 */
export class EmbeddedGroupCommit implements IntentSink {
  private readonly lines = new Map<string, LedgerLine>();
  private readonly now: () => number;
  private readonly owner = `embedded-${randomUUID()}`;

  /** The ledger's table as the engine's port. */
  private readonly tableOf: (ledger: LedgerRecord) => LedgerTable;

  constructor(private readonly options: EmbeddedOptions) {
    this.now = options.now ?? Date.now;
    const { clientFor, tableFor, tableOf } = options;
    if (tableOf) this.tableOf = tableOf;
    else if (clientFor)
      this.tableOf = (ledger) =>
        dynamoLedgerTable(clientFor(ledger.environment), tableFor(ledger.bucket), ledger);
    else throw new Error('the embedded engine needs its tables: tableOf or clientFor');
  }

  submit(ledger: LedgerRecord, operation: LedgerOperation): Promise<RelayAnswer> {
    return this.enqueue(ledger, [this.intentOf(ledger, operation)])[0]!;
  }

  /** Queued together and in order, so they are decided one after another in as few batches as fit. */
  submitGroup(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
    options: { stopOnFailure: boolean },
  ): { reqIds: string[]; answers: Promise<RelayAnswer[]> } {
    const group = options.stopOnFailure ? randomUUID() : undefined;
    const intents = operations.map((operation) => ({
      ...this.intentOf(ledger, operation, GROUP_DEADLINE_MS),
      ...(group ? { group } : {}),
    }));
    return {
      reqIds: intents.map((i) => i.reqId),
      answers: Promise.all(this.enqueue(ledger, intents)),
    };
  }

  /** One atomic group (an atomic bulk): decided all-or-nothing in one batch, or answered `too-large`. */
  submitAtomic(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
  ): { reqIds: string[]; answers: Promise<RelayAnswer[]> } {
    const group = randomUUID();
    const intents = operations.map((operation) => ({
      ...this.intentOf(ledger, operation, GROUP_DEADLINE_MS),
      group,
      atomic: true,
    }));
    return {
      reqIds: intents.map((i) => i.reqId),
      answers: Promise.all(this.enqueue(ledger, intents)),
    };
  }

  private intentOf(
    ledger: LedgerRecord,
    operation: LedgerOperation,
    deadlineMs = this.options.deadlineMs ?? DEFAULT_DEADLINE_MS,
  ): Intent {
    return {
      reqId: randomUUID(),
      environment: ledger.environment,
      ledger: ledger.name,
      operation,
      deadline: this.now() + deadlineMs,
    };
  }

  private enqueue(ledger: LedgerRecord, intents: readonly Intent[]): Array<Promise<RelayAnswer>> {
    const line = this.lineOf(ledger);
    const answers = intents.map(
      (intent) =>
        new Promise<RelayAnswer>((answer) =>
          line.waiting.push({ intent, answer, queuedMs: performance.now() }),
        ),
    );
    line.arrived?.();
    if (!line.running) {
      line.running = true;
      void this.drain(ledger, line);
    }
    return answers;
  }

  private lineOf(ledger: LedgerRecord): LedgerLine {
    const key = `${ledger.environment}\u0000${ledger.name}`;
    let line = this.lines.get(key);
    if (!line) {
      line = {
        sequencer: new LedgerSequencer({
          items: this.tableOf(ledger),
          table: this.options.tableFor(ledger.bucket),
          ledger,
          owner: this.owner,
          inProcess: !this.options.writerProtocol,
          ...(this.options.now ? { now: this.options.now } : {}),
          onCommitError: (err) =>
            this.options.logger?.log('warn', 'ledger engine: commit failed, deciding again', {
              environment: ledger.environment,
              ledger: ledger.name,
              error: `${(err as Error).name}: ${(err as Error).message}`,
            }),
        }),
        waiting: [],
        running: false,
        commitMs: 0,
        policy: this.policy(),
      };
      this.lines.set(key, line);
    }
    return line;
  }

  /** Adaptive unless told otherwise; the writer's protocol commits one batch at a time and keeps its half-batch gather. */
  private policy(): BatchPolicy {
    if (this.options.writerProtocol) return new BatchPolicy({ adaptive: false });
    return this.options.batchPolicy?.() ?? new BatchPolicy();
  }

  /**
   * Batches until the line is empty. Pipelined (batch-policy.ts): while one commits, the next — what arrived
   * meanwhile — is decided over it (LedgerSequencer.prepare), then committed once the first has landed. Gathered:
   * one at a time, each after the gather. A batch that went wrong is done again alone through the sequencer's
   * retries, and what came after it is decided again after it.
   */
  private async drain(ledger: LedgerRecord, line: LedgerLine): Promise<void> {
    try {
      let flight: Flight | undefined;
      while (line.waiting.length > 0 || flight) {
        if (flight && line.policy.mode === 'gathered') {
          await this.land(ledger, line, flight, []);
          flight = undefined;
          continue;
        }
        if (!flight) await this.gather(line, 0);
        const batch = take(line.waiting, MAX_BATCH_INTENTS);
        let prepared =
          batch.length > 0 && !this.options.writerProtocol
            ? await this.prepare(ledger, line, batch)
            : undefined;
        if (flight) {
          const landed = await this.land(ledger, line, flight, batch, prepared);
          flight = undefined;
          if (!landed) continue;
          if (prepared && (await this.gather(line, batch.length))) {
            // Decided again with the rest of the group: one commit for all of them.
            line.sequencer.discard(prepared);
            batch.push(...take(line.waiting, MAX_BATCH_INTENTS - batch.length));
            prepared = await this.prepare(ledger, line, batch);
          }
        }
        if (batch.length === 0) continue;
        if (prepared)
          flight = {
            batch,
            landed: this.timed(line, this.commitPrepared(ledger, line, batch, prepared)),
          };
        // Deciding failed: this batch goes through the sequencer's retries before anything else.
        else line.waiting.unshift(...(await this.commitBatch(ledger, line, batch)));
      }
    } finally {
      line.running = false;
    }
  }

  /**
   * Awaits the batch in flight, then `afterLanding`. True if it landed whole; otherwise it (done again if need be)
   * and `next` — decided over it, the decision voided — wait first in line.
   */
  private async land(
    ledger: LedgerRecord,
    line: LedgerLine,
    flight: Flight,
    next: Waiting[],
    prepared?: PreparedBatch,
  ): Promise<boolean> {
    const landed = await flight.landed;
    await this.options.afterLanding?.().catch(() => undefined);
    if (landed !== 'ok') {
      if (prepared) line.sequencer.discard(prepared);
      const again = landed === 'redo' ? await this.commitBatch(ledger, line, flight.batch) : landed;
      line.waiting.unshift(...again, ...next);
      return false;
    }
    const atMs = performance.now();
    line.landed = { size: flight.batch.length, atMs };
    line.policy.noteHeld(flight.batch.length + next.length + line.waiting.length, atMs);
    return true;
  }

  /**
   * After a batch landed, whether the next one — `next` requests decided, and what waits — smaller than the
   * policy wants (half the landed batch pipelined, the line's recent peak gathered), waited for more of them to come
   * back: true if any arrived meanwhile. The wait ends at that count, or once twice the time commits take lately has
   * passed since the landing (never more than `gatherMaxMs`): a lone writer never waits, nor a steady stream. Each
   * landing is waited on once.
   */
  private gather(line: LedgerLine, next: number): Promise<boolean> {
    const landed = line.landed;
    line.landed = undefined;
    if (!landed) return Promise.resolve(false);
    const wanted = line.policy.wanted(landed.size, performance.now());
    const budgetMs =
      Math.min(this.options.gatherMaxMs ?? DEFAULT_GATHER_MAX_MS, 2 * line.commitMs) -
      (performance.now() - landed.atMs);
    if (next + line.waiting.length >= wanted || budgetMs <= 0) return Promise.resolve(false);
    return new Promise((done) => {
      const finish = () => {
        clearTimeout(timer);
        line.arrived = undefined;
        done(line.waiting.length > 0);
      };
      const timer = setTimeout(finish, budgetMs);
      line.arrived = () => {
        if (next + line.waiting.length >= wanted) finish();
      };
    });
  }

  /** A commit, its duration folded into the line's moving average. */
  private async timed<T>(line: LedgerLine, commit: Promise<T>): Promise<T> {
    const started = performance.now();
    const landed = await commit;
    const tookMs = performance.now() - started;
    line.commitMs = line.commitMs > 0 ? 0.8 * line.commitMs + 0.2 * tookMs : tookMs;
    return landed;
  }

  private async prepare(
    ledger: LedgerRecord,
    line: LedgerLine,
    batch: Waiting[],
  ): Promise<PreparedBatch | undefined> {
    try {
      return await line.sequencer.prepare(batch.map((w) => w.intent));
    } catch (err) {
      this.options.logger?.log('warn', 'ledger engine: deciding a batch failed, retrying it', {
        environment: ledger.environment,
        ledger: ledger.name,
        error: (err as Error).message,
      });
      return undefined;
    }
  }

  /**
   * Commits a prepared batch and answers its requesters: 'ok', or the requests that must go first in the next
   * batch (deferred ones), or 'redo' when the decision no longer held and nothing was written.
   */
  private async commitPrepared(
    ledger: LedgerRecord,
    line: LedgerLine,
    batch: Waiting[],
    prepared: PreparedBatch,
  ): Promise<Landed> {
    let outcome;
    try {
      outcome = await line.sequencer.commitPrepared(prepared);
    } catch (err) {
      this.options.logger?.log('warn', 'ledger engine: a pipelined commit failed, retrying it', {
        environment: ledger.environment,
        ledger: ledger.name,
        error: (err as Error).message,
      });
      return 'redo';
    }
    if (outcome === 'redo') return 'redo';
    const later = this.answerBatch(line, batch, outcome);
    return later.length > 0 ? later : 'ok';
  }

  /** Answers what was decided; the requests that did not fit, to go first in the next batch. */
  private answerBatch(
    line: LedgerLine,
    batch: Waiting[],
    { results, deferred }: { results: Map<string, IntentResult>; deferred: Intent[] },
  ): Waiting[] {
    const later = new Set(deferred.map((i) => i.reqId));
    const nowMs = performance.now();
    let waitedMs = 0;
    for (const w of batch) {
      if (later.has(w.intent.reqId)) continue;
      w.answer(results.get(w.intent.reqId) ?? { status: 'unknown' });
      waitedMs += nowMs - w.queuedMs;
    }
    line.policy.noteAnswered(batch.length - later.size, waitedMs, nowMs);
    return batch.filter((w) => later.has(w.intent.reqId));
  }

  /** Commits one batch and answers its requesters; answers what did not fit, to go first in the next one. */
  private async commitBatch(
    ledger: LedgerRecord,
    line: LedgerLine,
    batch: Waiting[],
  ): Promise<Waiting[]> {
    try {
      return this.answerBatch(
        line,
        batch,
        await line.sequencer.process(batch.map((w) => w.intent)),
      );
    } catch (err) {
      // The sequencer gave up on the batch (its commits kept failing): whether the last one landed is unknown.
      this.options.logger?.log('error', 'ledger engine: batch failed', {
        environment: ledger.environment,
        ledger: ledger.name,
        intents: batch.length,
        error: (err as Error).message,
      });
      for (const w of batch) w.answer({ status: 'unknown' });
      return [];
    }
  }
}

/**
 * Up to `max` waiting requests, and the rest of an atomic group the cut would split (a group is one decision).
 * A batch holding atomic groups commits staged (sequencer.ts), so whole groups next in line join it up to
 * MAX_GROUP_BATCH_INTENTS: more bulks per staged commit.
 */
export function take(waiting: Waiting[], max: number): Waiting[] {
  let end = Math.min(max, waiting.length);
  const last = end > 0 ? waiting[end - 1]!.intent : undefined;
  if (!last?.atomic) return waiting.splice(0, end);
  const room = MAX_GROUP_BATCH_INTENTS - (MAX_BATCH_INTENTS - max);
  let group = last.group;
  while (end < waiting.length) {
    const next = waiting[end]!.intent;
    if (next.group !== group) {
      if (!next.atomic || end >= room) break;
      group = next.group;
    }
    end++;
  }
  return waiting.splice(0, end);
}
