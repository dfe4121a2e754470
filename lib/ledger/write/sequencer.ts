import { createHash } from 'node:crypto';
import { isThrottling } from '../../dynamo/errors.js';
import { attemptOf, retryWithBackoff } from '../../dynamo/retry.js';
import { PlatformError, ValidationError } from '../../errors/index.js';
import { parseJson } from '../../json/bigint-json.js';
import { recordMetric } from '../../observability/metrics.js';
import { operationRequest } from '../commands/operations.js';
import type { LedgerRecord, WriteRequest } from '../domain/change.js';
import type { Mapping } from '../domain/mapping.js';
import type { ItemView } from '../store/change-items.js';
import { ActionTally, commitItems, MAX_TRANSACTION_ITEMS, splitDeferred } from '../store/commit.js';
import {
  type CommitWrite,
  decideRequests,
  idempotencyKeyOf,
  type WriteOutcome,
} from '../store/decide-batch.js';
import type { Head } from '../store/head.js';
import { type ItemKey, keyString, ledgerKeys } from '../store/keys.js';
import { readKeys } from '../store/ledger-state.js';
import type { LedgerTable } from '../store/ledger-table.js';
import { mappingKey, parseStoredMapping } from '../store/mapping-item.js';
import { OverlayView } from '../store/overlay-view.js';
import { scriptStateReads } from '../store/script-state.js';
import {
  commitStagedHead,
  finishStaged,
  MAX_STAGED_ACTIONS,
  stagedVersions,
} from '../store/staged-bulk.js';
import { transactionHolderKeys } from '../store/transaction-lookup.js';
import { foldTransactionPages, putInView, transactionIn } from '../store/transaction-pages.js';
import { counted } from '../store/writer.js';
import type { Intent, IntentResult, OperationOutcome } from './intent.js';
import { putResults, resultsOfEntries, settleBatch } from './settle.js';

export interface SequencerOptions {
  /** The ledger's table: every read and write of the sequencer goes through this port. */
  items: LedgerTable;
  /** The table's name, which the items a decision builds carry. */
  table: string;
  ledger: LedgerRecord;
  /** This writer's identity on the lease it sets on HEAD. */
  owner: string;
  now?: () => number;
  /** How long after a commit requests keep relaying (the lease a commit sets on HEAD). */
  leaseMs?: number;
  /** An intent is decided only while at least this much is left before its deadline (commit time + clock skew). */
  decideMarginMs?: number;
  /** Told of a commit that failed for an unexpected reason (logged by the caller); the batch is decided again. */
  onCommitError?: (err: unknown) => void;
  /**
   * The requesters wait in this process (the embedded engine, write/embedded.ts): answers go back in memory, so
   * no result item is read or written, and a batch's new transactions are put in its commit, which then leaves
   * nothing to settle after it — one TransactWriteItems per batch, and nothing else.
   */
  inProcess?: boolean;
  /**
   * Told of a batch's committed answers as soon as its transactions can be read, before the result items are
   * written (the AWS writer replies then; the items stay the record, written before the messages are deleted).
   */
  onReadable?: (results: ReadonlyMap<string, IntentResult>) => void;
}

export const DEFAULT_LEASE_MS = 5_000;
export const DEFAULT_DECIDE_MARGIN_MS = 2_000;
/**
 * After a commit, transactions' items are put without a condition only while the lease has this much left: a
 * direct writer waits for the lease to lapse, and settles the batch itself, before it touches them.
 */
const LEAD_MARGIN_MS = 1_000;
/** Commits tried for one batch before giving up on it (its intents are left to their messages' redelivery). */
const MAX_COMMIT_ATTEMPTS = 8;

/**
 * One ledger's sequenced writer (group commit, docs/data-model.md "Two write modes"): many relayed requests
 * decided in order against exact state kept in memory and committed in ONE TransactWriteItems with one HEAD
 * update. Each request is decided on its own overlay, so a refused one (insufficient funds, a duplicate
 * reference) leaves nothing behind and blocks no other; the batch reaches the cache only once committed.
 *
 * Every commit sets a lease on HEAD (`leaseUntil`): while it is live, requests relay their writes here instead of
 * committing directly. It is a hint, not a lock: every commit is conditional on HEAD's version, so a writer whose
 * cache went stale (a direct write, another writer's batch) fails its commit, reads HEAD again — answering first
 * a batch HEAD names as possibly unanswered — and decides again. Two writers on one ledger are safe, only slower.
 */
export class LedgerSequencer {
  private readonly cache: ItemView = new Map();
  private readonly absent = new Set<string>();
  /**
   * Whether this writer has seen the ledger's whole life: HEAD had no log entry when it was read, and every commit
   * since is this writer's (a commit is conditional on the HEAD version it read; any failure drops memory and this
   * flag). Then an account, volume, hold or reference item the cache does not hold does not exist, and is not read:
   * a new ledger's new accounts cost no read before their decision. Every such item is written with a log entry.
   */
  private genesis = false;
  private head: Head | undefined;
  private mapping: Mapping | undefined;
  /** Groups (Intent.group) a member of which failed: the members after it are skipped. */
  private failedGroups = new Map<string, string>();
  /** Request ids this writer has answered: a duplicate message is answered from `answered` again. */
  private readonly answered = new Map<string, IntentResult>();
  private readonly now: () => number;
  private batches = 0;
  /**
   * Pipelined mode (prepare / commitPrepared): the last batch decided whose commit is not yet known — the next
   * batch is decided over it — and a count of the times memory was dropped, which tells a prepared batch whether
   * what it was decided over still holds.
   */
  private tip: { head: Head; view: OverlayView } | undefined;
  private epoch = 0;
  /**
   * Whether a batch reads its requests' idempotency records before deciding. Not at first: a key used before is
   * rare, and the record's put is conditional on its absence, so such a request fails its batch's commit — after
   * which the batch is decided again with the records read, and the request answered as the replay it is. A
   * batch of fresh keys then costs no read at all.
   */
  private readIdempotencyKeys = false;
  /**
   * In one process (no `pendingResults` on HEAD): the requests of commits that failed in a way that may still have
   * committed them (a timeout, a lost connection), and the first log id such a commit would have used. Until a
   * commit of ours succeeds (after which none of them can land any more: its HEAD condition is past theirs), each
   * reload looks for them in the log and answers those it finds, so none is committed twice.
   */
  private uncertain: { fromLogId: number; reqIds: Set<string> } | undefined;

  private readonly items: LedgerTable;

  constructor(private readonly options: SequencerOptions) {
    this.now = options.now ?? Date.now;
    this.items = options.items;
  }

  private get leaseMs() {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /**
   * Decides and commits a batch of intents, in order. Answers each decided intent (committed, refused, expired)
   * with its result item written; intents that did not fit in one TransactWriteItems are returned as deferred,
   * undecided, for the next batch.
   */
  async process(
    intents: readonly Intent[],
  ): Promise<{ results: Map<string, IntentResult>; deferred: Intent[] }> {
    // One batch at a time: a batch decides over the cache and HEAD this writer holds, which another batch of the
    // same writer would change (or drop) under it.
    const turn = this.turn.then(() => this.processInTurn(intents));
    this.turn = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private turn: Promise<void> = Promise.resolve();

  private async processInTurn(
    intents: readonly Intent[],
  ): Promise<{ results: Map<string, IntentResult>; deferred: Intent[] }> {
    const results = new Map<string, IntentResult>();
    // A request sent twice (a requester's resend, an SQS duplicate) is decided once: by id, first copy only.
    const fresh = this.unanswered(intents, results);
    const batch = await retryWithBackoff(
      async () => attemptOf(counted(await this.attempt(fresh), 'group')),
      { maxAttempts: MAX_COMMIT_ATTEMPTS },
      (attempts) => {
        throw new Error(
          `ledger ${this.options.ledger.name}: batch not committed after ${attempts} attempts`,
        );
      },
    );
    for (const [reqId, result] of batch.results) results.set(reqId, result);
    return { results, deferred: batch.deferred };
  }

  /**
   * Pipelined group commit (one process, `inProcess`): decides a batch now, over the items and HEAD of every
   * batch decided before it — committed, or still committing — so deciding batch N+1 overlaps batch N's commit.
   * `commitPrepared` commits it once N's commit is known, in order; if anything dropped this writer's memory
   * meanwhile (N failed), the decision no longer holds and the caller hands the batch to `process` instead.
   * Only one caller may prepare and commit at a time, and never beside `process`.
   */
  async prepare(intents: readonly Intent[]): Promise<PreparedBatch> {
    // commitPrepared writes nothing after its commit: a writer that defers items and results there must not use it.
    if (!this.options.inProcess) throw new Error('a pipelined batch needs an in-process writer');
    const results = new Map<string, IntentResult>();
    if (!this.head && !this.tip) await this.reload();
    const fresh = this.unanswered(intents, results);
    const epoch = this.epoch;
    const groupsBefore = new Map(this.failedGroups);
    const base = this.tip ?? { head: this.head!, view: this.cache };
    const nowMs = this.now();
    const live = this.live(fresh, nowMs, results);
    const requests = await this.requestsOf(live);
    await this.answerEarlier(live, requests, results);
    const view = new OverlayView(base.view);
    let batch;
    try {
      batch = await this.decideAll(live, requests, view, base.head, nowMs, results);
    } catch (err) {
      this.failedGroups = groupsBefore;
      throw err;
    }
    if (batch.writes.length > 0 && epoch === this.epoch)
      this.tip = {
        head: {
          ...this.nextHead(base.head, batch.head, nowMs),
          ...committedCounters(base.head, batch.writes),
        },
        view,
      };
    return { epoch, groupsBefore, initial: base.head, view, batch, results, nowMs };
  }

  /**
   * Commits a prepared batch after every batch prepared before it was committed. 'redo': its decision no longer
   * holds (a batch before it failed, or this commit did) — nothing of it was written, its groups are as before.
   */
  async commitPrepared(
    prepared: PreparedBatch,
  ): Promise<{ results: Map<string, IntentResult>; deferred: Intent[] } | 'redo'> {
    const { batch, results } = prepared;
    if (prepared.epoch !== this.epoch) return this.dropPrepared(prepared);
    if (batch.writes.length > 0) {
      const committed = await this.commit(
        prepared.initial,
        batch.head,
        batch.writes,
        prepared.nowMs,
        batch.decided.map((d) => d.reqId),
      );
      if (committed === 'retry') return this.forgetPrepared(prepared);
      prepared.view.rebase(this.cache);
      prepared.view.mergeIntoBase();
      if (this.tip?.view === prepared.view) this.tip = undefined;
      recordMetric('LedgerCommits', { mode: 'group' });
      recordMetric(
        'LedgerBatchSize',
        { mode: 'group' },
        batch.head.lastLogId - prepared.initial.lastLogId,
      );
    } else if (results.size > 0 && !(await this.headUnchanged(prepared.initial)))
      return this.forgetPrepared(prepared);
    for (const { reqId, outcome } of batch.decided)
      results.set(reqId, { status: 'committed', outcomes: [toOutcome(outcome)] });
    for (const [reqId, result] of results) this.remember(reqId, result);
    return { results, deferred: batch.deferred };
  }

  /**
   * A prepared batch that will not be committed (the one before it deferred requests, which go first): the next
   * batch is decided over what is committed. Nothing of it was written.
   */
  discard(prepared: PreparedBatch): void {
    this.dropPrepared(prepared);
  }

  /** Its own decision undone first (while memory still holds), then memory dropped: every batch after it is void. */
  private forgetPrepared(prepared: PreparedBatch): 'redo' {
    this.dropPrepared(prepared);
    this.forget();
    return 'redo';
  }

  private dropPrepared(prepared: PreparedBatch): 'redo' {
    // Group failures it decided are undone — unless memory was dropped since: then an earlier batch restored
    // them to before itself, which is before this one too.
    if (prepared.epoch === this.epoch) this.failedGroups = prepared.groupsBefore;
    if (this.tip?.view === prepared.view) this.tip = undefined;
    return 'redo';
  }

  /** Intents not answered before (a request sent twice is decided once); the others' answers go in `results`. */
  private unanswered(intents: readonly Intent[], results: Map<string, IntentResult>): Intent[] {
    const unique = [...new Map(intents.map((i) => [i.reqId, i])).values()];
    return unique.filter((intent) => {
      const known = this.answered.get(intent.reqId);
      if (known) results.set(intent.reqId, known);
      return !known;
    });
  }

  /** Intents with time left to be decided; the others are answered expired. */
  private live(
    intents: readonly Intent[],
    nowMs: number,
    results: Map<string, IntentResult>,
  ): Intent[] {
    return intents.filter((intent) => {
      if (intent.deadline - nowMs >= (this.options.decideMarginMs ?? DEFAULT_DECIDE_MARGIN_MS))
        return true;
      this.answer(results, intent, { status: 'expired' });
      return false;
    });
  }

  /** One attempt at a batch; one that did not commit leaves no group marked failed (it is decided again). */
  private async attempt(
    intents: readonly Intent[],
  ): Promise<{ results: Map<string, IntentResult>; deferred: Intent[] } | 'retry'> {
    const groupsBefore = new Map(this.failedGroups);
    try {
      const outcome = await this.attemptOnce(intents);
      if (outcome === 'retry') this.failedGroups = groupsBefore;
      return outcome;
    } catch (err) {
      this.failedGroups = groupsBefore;
      throw err;
    }
  }

  private async attemptOnce(
    intents: readonly Intent[],
  ): Promise<{ results: Map<string, IntentResult>; deferred: Intent[] } | 'retry'> {
    if (!this.head) await this.reload();
    const initial = this.head!;
    const nowMs = this.now();
    const results = new Map<string, IntentResult>();
    // Answers the reload found in the log (a commit that failed and had landed) are not decided again.
    const live = this.live(this.unanswered(intents, results), nowMs, results);
    const requests = await this.requestsOf(live);
    await this.answerEarlier(live, requests, results);
    const view = new OverlayView(this.cache);
    const batch = await this.decideAll(live, requests, view, initial, nowMs, results);
    let after: Array<Record<string, unknown>> = [];
    if (batch.writes.length > 0) {
      const committed = await this.commit(
        initial,
        batch.head,
        batch.writes,
        nowMs,
        batch.decided.map((d) => d.reqId),
      );
      if (committed === 'retry') return 'retry';
      after = committed.after;
      view.mergeIntoBase();
      recordMetric('LedgerCommits', { mode: 'group' });
      recordMetric('LedgerBatchSize', { mode: 'group' }, batch.head.lastLogId - initial.lastLogId);
    } else if (results.size > 0 && !(await this.headUnchanged(initial))) {
      // Refusals decided over memory that something else's commit (a direct write, a mapping change) made stale:
      // a commit would have caught it on HEAD's version; with nothing to commit, HEAD is read to be sure.
      this.forget();
      return 'retry';
    }
    for (const { reqId, outcome } of batch.decided)
      results.set(reqId, { status: 'committed', outcomes: [toOutcome(outcome)] });
    try {
      if (this.options.inProcess) {
        // Answered in memory, with nothing written after the commit.
      } else if (batch.writes.length > 0) await this.afterCommit(after, results, this.head!);
      else await putResults(this.items, this.options.ledger, results, this.now());
    } catch (err) {
      // A batch committed but not all written or answered: the next batch must not commit before it is (it would
      // replace HEAD's `pendingResults`), so read HEAD again first — which settles this batch from its log page.
      this.forget();
      throw err;
    }
    for (const [reqId, result] of results) this.remember(reqId, result);
    return { results, deferred: batch.deferred };
  }

  /**
   * Each live intent's request, or its refusal. Requests first (a revert reads its original); a revert of a
   * transaction this batch creates is built when decided, from the batch's own items ('in-batch').
   */
  private async requestsOf(live: readonly Intent[]): Promise<Map<string, PendingRequest>> {
    const requests = new Map<string, PendingRequest>();
    for (const intent of live) {
      if (
        intent.operation.kind === 'revert' &&
        !(await this.readTransaction(intent.operation.id))
      ) {
        requests.set(intent.reqId, 'in-batch');
        continue;
      }
      try {
        requests.set(
          intent.reqId,
          await operationRequest(
            this.options.ledger,
            intent.operation,
            (id) => this.readTransaction(id),
            this.scriptState,
          ),
        );
      } catch (err) {
        requests.set(intent.reqId, refusal(err));
      }
    }
    return requests;
  }

  /**
   * One consistent BatchGetItem: what the requests read that the cache lacks, and the results earlier writers
   * may have written for these request ids (a resent or redelivered request is answered, not decided again).
   */
  private async answerEarlier(
    live: readonly Intent[],
    requests: Map<string, PendingRequest>,
    results: Map<string, IntentResult>,
  ): Promise<void> {
    const ledger = this.options.ledger;
    const deciding = [...requests.values()].flatMap((r) =>
      r !== 'in-batch' && 'decide' in r ? [r] : [],
    );
    const state = deciding.flatMap((r) => readKeys(ledger, r.reads));
    this.presumeAbsent(state);
    const earlier = await this.load(
      [
        ...state,
        ...deciding.flatMap((r) =>
          r.idempotency && this.readIdempotencyKeys ? [idempotencyKeyOf(ledger, r)!] : [],
        ),
        ...(await this.transactionKeys(deciding.flatMap((r) => r.reads.transactions ?? []))),
      ],
      this.options.inProcess ? [] : live.map((i) => ledgerKeys.result(ledger, i.reqId)),
    );
    for (const intent of live) {
      const stored = earlier.get(keyString(ledgerKeys.result(ledger, intent.reqId)));
      if (stored) {
        results.set(intent.reqId, parseJson(String(stored.result)) as IntentResult);
        requests.delete(intent.reqId);
      }
    }
  }

  /**
   * Decides the requests in order over the view, each on its own overlay merged in only if it fits the
   * transaction: one that would overflow it waits for the next batch (deferred), with every one after it.
   */
  private async decideAll(
    live: readonly Intent[],
    requests: Map<string, PendingRequest>,
    view: OverlayView,
    initial: Head,
    nowMs: number,
    results: Map<string, IntentResult>,
  ) {
    const context = { ledger: this.options.ledger, table: this.options.table, nowMs };
    let head = initial;
    const writes: CommitWrite[] = [];
    const decided: Array<{ reqId: string; outcome: WriteOutcome<unknown> }> = [];
    const deferred: Intent[] = [];
    const tally = new ActionTally(!this.options.inProcess);
    // In one process a batch holding an atomic group may exceed one transaction: it commits staged (commit()).
    const groupLimit = this.options.inProcess ? MAX_STAGED_ACTIONS : MAX_TRANSACTION_ITEMS;
    let limit = MAX_TRANSACTION_ITEMS;
    for (let at = 0; at < live.length; at++) {
      const intent = live[at]!;
      // Once one waits for the next batch, every one after it does: order is kept, refusals included.
      if (deferred.length > 0) {
        deferred.push(intent);
        continue;
      }
      if (intent.atomic && intent.group !== undefined) {
        const members = membersFrom(live, at);
        at += members.length - 1;
        const group = await this.decideAtomic(members, requests, view, head, nowMs, results);
        if (!group) continue;
        const actions = tally.actionsWith(group.writes);
        if (actions <= groupLimit) {
          limit = groupLimit;
          group.own.mergeIntoBase();
          head = group.head;
          writes.push(...group.writes);
          tally.add(group.writes);
          decided.push(...group.decided);
        } else if (writes.length > 0) deferred.push(...members);
        else for (const m of members) results.set(m.reqId, { status: 'too-large' });
        continue;
      }
      const pending = requests.get(intent.reqId);
      if (!pending) continue;
      const failed = intent.group === undefined ? undefined : this.failedGroups.get(intent.group);
      if (failed !== undefined) {
        results.set(intent.reqId, { status: 'skipped', after: failed });
        continue;
      }
      const request = pending === 'in-batch' ? await this.inBatchRequest(intent, view) : pending;
      if (!('decide' in request)) {
        this.answer(results, intent, request);
        continue;
      }
      const own = new OverlayView(view);
      let outcome;
      try {
        outcome = decideRequests({ ...context, requestId: intent.reqId }, own, head, this.mapping, [
          request,
        ]);
      } catch (err) {
        this.answer(results, intent, refusal(err));
        continue;
      }
      const actions = tally.actionsWith(outcome.writes);
      if (actions > limit) {
        if (writes.length === 0) this.answer(results, intent, tooManyItems(actions));
        else deferred.push(intent);
        continue;
      }
      own.mergeIntoBase();
      head = outcome.head;
      writes.push(...outcome.writes);
      tally.add(outcome.writes);
      decided.push({ reqId: intent.reqId, outcome: outcome.outcomes[0]! });
    }
    const paged = foldTransactionPages(this.options.ledger, view, writes);
    return { head, writes: paged, decided, deferred };
  }

  /**
   * An atomic group's members decided in order on one overlay of their own over `view`: its writes, HEAD and
   * outcomes — or undefined once a member is refused, the overlay dropped, that member answered its refusal and
   * every other member skipped after it (nothing of the group is written; the batch's other requests go on).
   */
  private async decideAtomic(
    members: readonly Intent[],
    requests: Map<string, PendingRequest>,
    view: OverlayView,
    initial: Head,
    nowMs: number,
    results: Map<string, IntentResult>,
  ) {
    const context = { ledger: this.options.ledger, table: this.options.table, nowMs };
    const own = new OverlayView(view);
    let head = initial;
    const writes: CommitWrite[] = [];
    const decided: Array<{ reqId: string; outcome: WriteOutcome<unknown> }> = [];
    for (const intent of members) {
      const pending = requests.get(intent.reqId);
      let refused: IntentResult | undefined;
      const request =
        pending === 'in-batch' ? await this.inBatchRequest(intent, own) : (pending ?? undefined);
      if (request && 'decide' in request) {
        try {
          const outcome = decideRequests(
            { ...context, requestId: intent.reqId },
            own,
            head,
            this.mapping,
            [request],
          );
          head = outcome.head;
          writes.push(...outcome.writes);
          decided.push({ reqId: intent.reqId, outcome: outcome.outcomes[0]! });
          continue;
        } catch (err) {
          refused = refusal(err);
        }
      } else refused = request ?? { status: 'expired' };
      for (const m of members)
        results.set(m.reqId, m === intent ? refused : { status: 'skipped', after: intent.reqId });
      return undefined;
    }
    return { own, head, writes, decided };
  }

  /** An intent's answer without a commit (refused, expired): a group it belongs to skips its later members. */
  private answer(results: Map<string, IntentResult>, intent: Intent, result: IntentResult): void {
    results.set(intent.reqId, result);
    if (intent.group === undefined || result.status === 'committed') return;
    if (this.failedGroups.size > 10_000) this.failedGroups.clear();
    this.failedGroups.set(intent.group, intent.reqId);
  }

  /** A revert of a transaction created earlier in this batch: built from the batch's own items. */
  private async inBatchRequest(
    intent: Intent,
    view: ItemView,
  ): Promise<WriteRequest<unknown> | IntentResult> {
    try {
      return await operationRequest(this.options.ledger, intent.operation, async (id) => {
        const item = view.get(keyString(ledgerKeys.transaction(this.options.ledger, id)));
        return transactionIn(item, id)?.tx;
      });
    } catch (err) {
      return refusal(err);
    }
  }

  /**
   * Commits the batch's writes with HEAD moved to `head` under our lease. New transactions' items follow the
   * commit (half the price outside a transaction), before any answer: they are returned as `after`.
   */
  private async commit(
    initial: Head,
    head: Head,
    writes: readonly CommitWrite[],
    nowMs: number,
    reqIds: readonly string[],
  ): Promise<{ after: Array<Record<string, unknown>> } | 'retry'> {
    const next = this.nextHead(initial, head, nowMs);
    const split = this.options.inProcess
      ? { atomic: commitItems([...writes]), after: [] }
      : splitDeferred([...writes]);
    let retry;
    try {
      // A batch beyond one transaction holds an atomic group (decideAll): committed staged, all-or-nothing.
      if (isStaged(split.atomic)) {
        const done = await commitStagedHead(this.items, this.options.ledger, initial, next, writes);
        if (typeof done !== 'string') {
          this.readIdempotencyKeys = false;
          // Its parts are applied later, perhaps by another process (a reader, the next writer), not through this
          // writer's commits alone: it reads what it decides over from now on.
          this.genesis = false;
          this.head = done.head;
          // Committed, not finished: the next batch reads HEAD again and finishes the bulk first (reload).
          if (!done.head) this.forget();
          return { after: [] };
        }
        retry = done;
      } else
        retry = await this.items.commit(initial, next, split.atomic, {
          clientRequestToken: createHash('sha256')
            .update(
              `${this.options.owner}/${this.options.ledger.environment}/${this.options.ledger.name}/${this.batches++}`,
            )
            .digest('hex')
            .slice(0, 32),
        });
    } catch (err) {
      if (isThrottling(err)) return 'retry';
      // A refused condition of our own (a reference) means the cache missed a write; any other failure may
      // have committed or not: either way, read HEAD again — reload() answers a batch that did commit.
      if (!(err instanceof PlatformError)) {
        this.options.onCommitError?.(err);
        // Not a refusal: the commit may have landed (a timeout, a lost connection).
        if (this.options.inProcess) this.markUncertain(initial.lastLogId + 1, reqIds);
      }
      this.forget();
      return 'retry';
    }
    if (retry) {
      if (retry === 'idempotency') this.readIdempotencyKeys = true;
      this.forget();
      return 'retry';
    }
    this.readIdempotencyKeys = false;
    this.uncertain = undefined;
    this.head = { ...next, version: (initial.version ?? 0) + 1 };
    return { after: split.after };
  }

  private markUncertain(fromLogId: number, reqIds: readonly string[]): void {
    const known = this.uncertain;
    this.uncertain = {
      fromLogId: Math.min(known?.fromLogId ?? fromLogId, fromLogId),
      reqIds: new Set([...(known?.reqIds ?? []), ...reqIds]),
    };
  }

  /** The uncertain commits' requests found in the log since they failed: answered from their entries. */
  private async recoverUncertain(): Promise<void> {
    const uncertain = this.uncertain;
    if (!uncertain || this.head!.lastLogId < uncertain.fromLogId) return;
    const entries = await this.items.readLogRange(uncertain.fromLogId, this.head!.lastLogId);
    for (const [reqId, result] of resultsOfEntries(entries))
      if (uncertain.reqIds.delete(reqId)) this.remember(reqId, result);
  }

  /** HEAD as a commit of this batch writes it (its version aside: the commit sets the one read plus one). */
  private nextHead(initial: Head, head: Head, nowMs: number): Head {
    const { pendingResults: _settled, ...rest } = head;
    return {
      ...rest,
      leaseOwner: this.options.owner,
      leaseUntil: nowMs + this.leaseMs,
      // In one process nothing is left to settle after the commit: no batch is named.
      ...(this.options.inProcess
        ? {}
        : { pendingResults: { firstLogId: initial.lastLogId + 1, lastLogId: head.lastLogId } }),
    };
  }

  /** Whether HEAD still has the version this writer decided over (one consistent read). */
  private async headUnchanged(initial: Head): Promise<boolean> {
    const [item] = await this.items.getItems([ledgerKeys.head(this.options.ledger)]);
    return item !== undefined && Number(item.version) === initial.version;
  }

  /** Drops every cached item: the next batch reads HEAD and what it needs again. */
  private forget(): void {
    this.genesis = false;
    this.cache.clear();
    this.absent.clear();
    this.head = undefined;
    this.tip = undefined;
    this.epoch++;
  }

  /** What reads see: the committed items under the writes of a batch decided and still committing. */
  private readView(): ItemView {
    return this.tip?.view ?? this.cache;
  }

  /**
   * After a commit, in this order: the new transactions' items, the results (a requester is answered only once
   * its transaction can be read), then HEAD told the batch is settled. The items go by BatchWriteItem while this
   * writer surely still leads (no direct write can have changed them); past that, each only if absent.
   */
  private async afterCommit(
    items: ReadonlyArray<Record<string, unknown>>,
    results: ReadonlyMap<string, IntentResult>,
    head: Head,
  ): Promise<void> {
    const table = this.items;
    const { ledger } = this.options;
    await table.putItems(items, {
      ifAbsent: this.now() + LEAD_MARGIN_MS >= (head.leaseUntil ?? 0),
    });
    this.options.onReadable?.(results);
    await putResults(table, ledger, results, this.now());
    await table.clearPending(head.version);
  }

  /**
   * HEAD read again after the cache was dropped. A batch it names as possibly unsettled (ours, after a commit
   * whose after-commit writes failed, or a stopped writer's) is settled first from its log page, so none of its
   * requests is decided a second time (their results now exist) and every transaction it created can be read.
   */
  private async reload(): Promise<void> {
    await this.readHead();
    // An atomic bulk committed in parts and not yet fully applied (store/staged-bulk.ts): finished first.
    if (this.head!.staged) {
      await finishStaged(this.items, this.options.ledger, { head: this.head! });
      await this.readHead();
    }
    if (this.head!.pendingResults)
      await settleBatch(this.items, this.options.ledger, this.head!, this.now());
    await this.recoverUncertain();
    this.genesis = this.head!.lastLogId === 0 && this.cache.size === 0;
  }

  /**
   * Reads HEAD by setting this writer's lease on it and moving its version: a direct write decided before this
   * fails its commit, reads HEAD again, sees the lease and relays — so a writer that starts, or lost a commit to
   * direct writes, is not starved by them.
   */
  private async readHead(): Promise<void> {
    this.head = await this.items.takeHead(this.options.owner, this.now() + this.leaseMs);
    await this.loadMapping();
  }

  /** The mapping HEAD names (a version's never changes); HEAD read again if a newer one replaced it meanwhile. */
  private async loadMapping(): Promise<void> {
    for (;;) {
      const version = this.head!.mappingVersion;
      if (version === undefined) {
        this.mapping = undefined;
        return;
      }
      const [item] = await this.items.getItems([mappingKey(this.options.ledger)]);
      if (item && Number(item.version) === version) {
        this.mapping = parseStoredMapping(String(item.mapping));
        return;
      }
      await this.readHead();
    }
  }

  /** A script's plan reads through this writer's cache (what it reads stays cached for the decision). */
  private get scriptState() {
    return scriptStateReads(this.options.ledger, async (keys) => {
      // A script's plan reads accounts and volumes only.
      this.presumeAbsent(keys);
      await this.load(keys);
      return keys.map((k) => this.readView().get(keyString(k)));
    });
  }

  private async readTransaction(id: number) {
    const key = ledgerKeys.transaction(this.options.ledger, id);
    await this.load(await this.transactionKeys([id]));
    const item = this.readView().get(keyString(key));
    return transactionIn(item, id)?.tx;
  }

  /** The keys of the items holding these transactions, but for those this writer already knows. */
  private transactionKeys(ids: readonly number[]): Promise<ItemKey[]> {
    const { ledger } = this.options;
    const view = this.readView();
    const unknown = ids.filter((id) => !view.has(keyString(ledgerKeys.transaction(ledger, id))));
    return transactionHolderKeys(this.items, ledger, unknown);
  }

  /** While this writer has seen the ledger's whole life (`genesis`), what it does not hold of these is absent. */
  private presumeAbsent(stateKeys: readonly ItemKey[]): void {
    if (!this.genesis) return;
    const view = this.readView();
    for (const key of stateKeys) if (!view.has(keyString(key))) this.absent.add(keyString(key));
  }

  /**
   * Reads items by key in one consistent BatchGetItem (100 keys a call): `cached` ones unless already known —
   * found items and known absences are kept for the next batches — and `fresh` ones always, not kept. Answers what
   * was read.
   */
  private async load(
    cached: ItemKey[],
    fresh: ItemKey[] = [],
  ): Promise<Map<string, Record<string, unknown>>> {
    // What a batch decided before this one and not yet committed wrote is known: never read it from the table.
    const view = this.readView();
    const misses = [...new Map(cached.map((k) => [keyString(k), k])).values()].filter(
      (k) => !view.has(keyString(k)) && !this.absent.has(keyString(k)),
    );
    const keys = [...misses, ...fresh];
    const epoch = this.epoch;
    const items = keys.length > 0 ? await this.items.getItems(keys) : [];
    const found = new Map<string, Record<string, unknown>>();
    keys.forEach((key, i) => {
      const item = items[i];
      if (item) found.set(keyString(key), item);
    });
    // Memory dropped while reading (a commit failed, perhaps after landing): what was read may be older than it.
    if (epoch !== this.epoch) return found;
    for (const key of misses) {
      const item = found.get(keyString(key));
      // A page of transactions is known under each of its transactions' keys.
      if (item)
        putInView(this.cache, item, (id) => ledgerKeys.transaction(this.options.ledger, id));
      else this.absent.add(keyString(key));
    }
    return found;
  }

  private remember(reqId: string, result: IntentResult): void {
    if (this.answered.size > 50_000) this.answered.clear();
    this.answered.set(reqId, result);
  }
}

/** The members of the atomic group `live[at]` starts: consecutive, as they were handed over together. */
function membersFrom(live: readonly Intent[], at: number): Intent[] {
  const group = live[at]!.group;
  let end = at;
  while (end < live.length && live[end]!.group === group) end++;
  return live.slice(at, end);
}

/** A batch decided by `prepare`, to be committed by `commitPrepared` (or dropped). */
export interface PreparedBatch {
  readonly epoch: number;
  readonly groupsBefore: Map<string, string>;
  readonly initial: Head;
  readonly view: OverlayView;
  readonly batch: {
    head: Head;
    writes: CommitWrite[];
    decided: Array<{ reqId: string; outcome: WriteOutcome<unknown> }>;
    deferred: Intent[];
  };
  readonly results: Map<string, IntentResult>;
  readonly nowMs: number;
}

function toOutcome(outcome: WriteOutcome<unknown>): OperationOutcome {
  if (outcome.kind === 'committed')
    return {
      kind: 'committed',
      result: outcome.result,
      logId: outcome.log.id,
      inOrder: outcome.inOrder,
    };
  // Dry runs are never relayed: what is left is a replay.
  return {
    kind: 'replayed',
    result: outcome.result,
    ...('logId' in outcome && outcome.logId !== undefined ? { logId: outcome.logId } : {}),
  };
}

/** A request's refusal as its result; anything but a domain error is a fault of the writer, not the request. */
/** A request, its refusal, or a revert to build from the batch's own items when decided. */
type PendingRequest = WriteRequest<unknown> | IntentResult | 'in-batch';

function tooManyItems(actions: number): IntentResult {
  return refusal(
    new ValidationError(
      `the request touches too many accounts and assets (${actions} items to write, at most ${MAX_TRANSACTION_ITEMS})`,
    ),
  );
}

function refusal(err: unknown): IntentResult {
  if (err instanceof PlatformError)
    return { status: 'refused', error: { kind: err.kind, message: err.message } };
  throw err;
}

/** Whether a batch's items are beyond one TransactWriteItems (with HEAD's put), so it commits staged. */
function isStaged(items: readonly CommitWrite[]): boolean {
  return items.length + 1 > MAX_TRANSACTION_ITEMS;
}

/**
 * HEAD's counters once an in-process batch's commit of these writes is done: its version moved once, or by a
 * staged commit's first transaction and parts — which also counts one more staged bulk (staged-reads.ts).
 */
function committedCounters(initial: Head, writes: readonly CommitWrite[]): Partial<Head> {
  const version = initial.version ?? 0;
  if (!isStaged(commitItems([...writes]))) return { version: version + 1 };
  return {
    version: version + stagedVersions(writes),
    stagedBulks: (initial.stagedBulks ?? 0) + 1,
  };
}
