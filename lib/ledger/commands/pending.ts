import { ValidationError } from '../../errors/index.js';
import { formatInstant, type Instant, instantFromMs, parseInstant } from '../../time/instant.js';
import type { LedgerChange, LedgerRecord, LedgerState, WriteRequest } from '../domain/change.js';
import { checkExpectations, type Expectation } from '../domain/expectations.js';
import { requireFeature } from '../domain/features.js';
import {
  decideCreatePending,
  decidePostPending,
  decideReleasePending,
  type HeldChange,
  PendingResolvedError,
  type PendingState,
  type PendingTransfer,
  pendingView,
} from '../domain/pending.js';
import { postingEffects, postingReads } from '../domain/posting-effects.js';
import type { Posting } from '../domain/postings.js';
import { type Transaction, transactionView } from '../domain/transaction.js';
import { requestHash } from './create-transaction.js';
import { withExpectationReads } from './expectations.js';

/** What a hold's creation takes (the routes' createPendingSchema produces it: routes/pending-schemas.ts). */
export interface CreatePendingInput {
  postings: Posting[];
  metadata?: Record<string, string>;
  /** When the rest releases by itself (RFC 3339); or `timeout`, seconds from the decision. */
  expiresAt?: string;
  timeout?: number;
  force?: boolean;
  expect?: Expectation[];
}

/** What a post of a hold takes (the routes' postPendingSchema produces it). */
export interface PostPendingInput {
  /** Per posting of the hold, what to post now (default: all that remains of each). */
  amounts?: bigint[];
  /** Release what remains after this post. */
  final?: boolean;
  /** The metadata of the transaction the post creates. */
  metadata?: Record<string, string>;
  expect?: Expectation[];
}

export interface PendingWriteOptions {
  dryRun: boolean;
  idempotencyKey?: string;
}

/** A write on a hold whose postings (never changed after its creation) say which pairs it reads. */
export interface HoldTarget {
  id: number;
  postings: Posting[];
}

/** The ledger's state as the pure pending decisions read it. */
export function pendingStateOf(state: LedgerState): PendingState {
  return {
    volume: (account, asset) => state.volume(account, asset),
    held: (account, asset) => state.held?.(account, asset),
    pending: (id) => state.pending?.(id),
    ...(state.mapping ? { mapping: state.mapping } : {}),
    metadataOf: (account) => state.account(account)?.metadata,
  };
}

/** The state with a decision's held volumes over it: a post's transfer is checked against what it left held. */
function withHeld(state: LedgerState, held: readonly HeldChange[]): LedgerState {
  const changed = new Map(held.map((h) => [`${h.account}\u0000${h.asset}`, h.held]));
  return {
    head: state.head,
    ...(state.mapping ? { mapping: state.mapping } : {}),
    volume: (account, asset) => state.volume(account, asset),
    account: (address) => state.account(address),
    transaction: (id) => state.transaction(id),
    referenceTaken: (reference) => state.referenceTaken(reference),
    held: (account, asset) =>
      changed.get(`${account}\u0000${asset}`) ?? state.held?.(account, asset),
    pending: (id) => state.pending?.(id),
  };
}

/**
 * A hold's postings never change, so the ones read before the write plan its reads; a hold read back with other
 * postings would leave a pair unread, which no decision may do.
 */
function checkPlanned(state: LedgerState, hold: HoldTarget): void {
  const stored = state.pending?.(hold.id);
  const pairs = (ps: readonly Posting[]) =>
    ps.map((p) => `${p.source}\u0000${p.destination}\u0000${p.asset}\u0000${p.amount}`).join('\n');
  if (stored && pairs(stored.postings) !== pairs(hold.postings))
    throw new Error(`pending transfer ${hold.id}: its postings differ from those its write read`);
}

const idempotencyOf = (
  options: PendingWriteOptions,
  input: unknown,
): Pick<WriteRequest<unknown>, 'idempotency'> =>
  options.idempotencyKey !== undefined
    ? {
        idempotency: {
          key: options.idempotencyKey,
          requestHash: requestHash(input, { dryRun: options.dryRun }),
        },
      }
    : {};

/** A change that moves only holds: no transaction, volume, account or reference. */
function holdChange(
  log: LedgerChange['log'],
  pending: PendingTransfer,
  held: HeldChange[],
): LedgerChange {
  return {
    log,
    transactions: [],
    volumes: [],
    moves: [],
    accounts: [],
    references: [],
    accountsAdded: 0,
    held,
    pendings: [pending],
  };
}

/** When a new hold expires: `expiresAt` as given, or `timeout` seconds after the decision. */
function expiryOf(input: CreatePendingInput, now: Instant): Instant | undefined {
  if (input.expiresAt !== undefined && input.timeout !== undefined)
    throw new ValidationError('body: send expiresAt or timeout, not both');
  if (input.expiresAt !== undefined) return parseInstant(input.expiresAt, 'body.expiresAt');
  if (input.timeout !== undefined) return instantFromMs(now.ms + input.timeout * 1000);
  return undefined;
}

/**
 * POST /v2/<ledger>/pending: a hold, its id the log id of its CREATED_PENDING entry (unique and ordered, and on HEAD
 * already). Its postings reserve money: the sources' available balances fall, posted balances do not.
 */
export function createPendingWrite(
  ledger: LedgerRecord,
  input: CreatePendingInput,
  options: PendingWriteOptions,
): WriteRequest<ReturnType<typeof pendingView>> {
  requireFeature(ledger.features, 'PENDING_TRANSFERS');
  return {
    ledger,
    reads: withExpectationReads(postingReads(input.postings), input.expect),
    dryRun: options.dryRun,
    ...idempotencyOf(options, { pending: input }),
    decide(state, { now }) {
      const expiresAt = expiryOf(input, now);
      const decision = decideCreatePending(pendingStateOf(state), {
        id: state.head.lastLogId + 1,
        postings: input.postings,
        ...(input.metadata ? { metadata: input.metadata } : {}),
        now,
        ...(expiresAt ? { expiresAt } : {}),
        force: input.force === true,
      });
      // A hold moves no posted volume: before and after it, the pairs' volumes are the same.
      const volume = (account: string, asset: string) => state.volume(account, asset);
      checkExpectations(input.expect, { before: volume, after: volume });
      const view = pendingView(decision.pending);
      return {
        result: view,
        change: holdChange(
          { type: 'CREATED_PENDING', data: { pending: view } },
          decision.pending,
          decision.held,
        ),
      };
    },
  };
}

/**
 * POST /v2/<ledger>/pending/<id>/post: the money moves as a transaction of its own (NEW_TRANSACTION, whose data
 * adds the hold after it), from the held money: each posting's amount (default all that remains), `final`
 * releasing the rest. Decided over the hold as the sequencer holds it, so posts never exceed the hold.
 */
export function postPendingWrite(
  ledger: LedgerRecord,
  hold: HoldTarget,
  input: PostPendingInput,
  options: PendingWriteOptions,
): WriteRequest<{ pending: ReturnType<typeof pendingView>; transaction: unknown }> {
  requireFeature(ledger.features, 'PENDING_TRANSFERS');
  return {
    ledger,
    reads: {
      ...withExpectationReads(postingReads(hold.postings), input.expect),
      pending: [hold.id],
    },
    dryRun: options.dryRun,
    ...idempotencyOf(options, { post: hold.id, body: input }),
    decide(state, { now }) {
      checkPlanned(state, hold);
      const txId = state.head.lastTxId + 1;
      const decision = decidePostPending(pendingStateOf(state), hold.id, {
        now,
        txId,
        ...(input.amounts ? { amounts: input.amounts } : {}),
        ...(input.final !== undefined ? { final: input.final } : {}),
      });
      const effects = postingEffects(withHeld(state, decision.held), decision.transfer, {
        force: false,
        at: now,
        now,
        txId,
      });
      checkExpectations(input.expect, {
        before: (account, asset) => state.volume(account, asset),
        after: (account, asset) => effects.post[account]?.[asset] ?? state.volume(account, asset),
      });
      const nowText = formatInstant(now);
      const tx: Transaction = {
        id: txId,
        postings: decision.transfer,
        metadata: input.metadata ?? {},
        timestamp: nowText,
        insertedAt: nowText,
        updatedAt: nowText,
        reverted: false,
      };
      const pending = pendingView(decision.pending);
      return {
        result: { pending, transaction: transactionView(tx, { post: effects.post }) },
        change: {
          log: {
            type: 'NEW_TRANSACTION',
            // `pending` and `post` beside the reference's fields: the hold after it, and what this post took.
            data: {
              transaction: transactionView(tx),
              accountMetadata: {},
              pending,
              post: postOf(state.pending!(hold.id)!, decision.pending, input.final === true),
            },
          },
          transactions: [{ record: { tx, post: effects.post } }],
          volumes: effects.volumes,
          moves: effects.moves,
          accounts: effects.accounts,
          references: [],
          lastTxId: txId,
          accountsAdded: effects.accountsAdded,
          held: decision.held,
          pendings: [decision.pending],
        },
      };
    },
  };
}

/** What one post took of each posting, and (a final post) what it released. */
function postOf(before: PendingTransfer, after: PendingTransfer, final: boolean) {
  return {
    amounts: after.postings.map((p, i) => p.posted - before.postings[i]!.posted),
    final,
    released: after.postings.map((p, i) => p.voided - before.postings[i]!.voided),
  };
}

/**
 * POST /v2/<ledger>/pending/<id>/void, and the sweeper's expiry (reason EXPIRED): all that remains is released. An
 * expiry of a hold resolved meanwhile, or not yet due, is refused (PENDING_RESOLVED) and writes nothing.
 */
export function voidPendingWrite(
  ledger: LedgerRecord,
  hold: HoldTarget,
  reason: 'VOID' | 'EXPIRED',
  options: PendingWriteOptions,
): WriteRequest<ReturnType<typeof pendingView>> {
  requireFeature(ledger.features, 'PENDING_TRANSFERS');
  return {
    ledger,
    reads: { ...postingReads(hold.postings), pending: [hold.id] },
    dryRun: options.dryRun,
    ...idempotencyOf(options, { void: hold.id, reason }),
    decide(state, { now }) {
      checkPlanned(state, hold);
      const decision = decideReleasePending(pendingStateOf(state), hold.id, { now, reason });
      if (!decision)
        throw new PendingResolvedError(
          `pending transfer ${hold.id} is resolved or not yet due: nothing expires`,
        );
      const view = pendingView(decision.pending);
      return {
        result: view,
        change: holdChange(
          {
            type: 'VOIDED_PENDING',
            data: { pending: view, reason, released: decision.released },
          },
          decision.pending,
          decision.held,
        ),
      };
    },
  };
}
