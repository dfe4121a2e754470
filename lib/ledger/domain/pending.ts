import {
  InsufficientFundError,
  NotFoundError,
  PendingExpiredError,
  PendingResolvedError,
  ValidationError,
} from '../../errors/index.js';
import { formatInstant, type Instant, sortableInstant } from '../../time/instant.js';
import { availableOf, type HeldVolume, NO_HOLD } from './available.js';
import { contractFor, describeContract, evaluate } from './contract-eval.js';
import type { Mapping } from './mapping.js';
import { WORLD } from './names.js';
import type { Posting, Volume } from './postings.js';

/**
 * Pending (two-phase) transfers as pure decisions (docs/decisions/ledger.md, "Pending transfers"): a hold
 * reserves money — the source's available balance falls, its posted balance does not — then is posted (in part,
 * several times, up to each posting's amount), voided, or expires.
 * They decide over a `PendingState` and answer what changes, as the ledger's other decisions do; the commands
 * (commands/pending.ts) wrap them into ledger changes.
 */

export { availableOf, checkAvailableAfter, type HeldVolume, NO_HOLD } from './available.js';
export { PendingExpiredError, PendingResolvedError };

/** A posting of a hold, with what was posted from it and what was released unposted. */
export interface PendingPosting extends Posting {
  posted: bigint;
  voided: bigint;
}

export type PendingStatus = 'PENDING' | 'POSTED' | 'VOIDED' | 'EXPIRED';

/** Why the rest of a hold was released: a void, its expiry, or a post marked `final`. */
export type ReleaseReason = 'VOID' | 'EXPIRED' | 'FINAL';

export interface PendingTransfer {
  id: number;
  postings: PendingPosting[];
  metadata: Record<string, string>;
  reference?: string;
  insertedAt: string;
  /** When the rest releases by itself; from then on no post is accepted. */
  expiresAt?: string;
  /** Sortable form of expiresAt (compared with a decision's `now`). */
  expiresAtKey?: string;
  status: PendingStatus;
  /** The transactions its posts created, in order. */
  transactions: number[];
}

/** What a pending decision reads: posted volumes, held volumes, holds. */
export interface PendingState {
  volume(account: string, asset: string): Volume | undefined;
  held(account: string, asset: string): HeldVolume | undefined;
  pending(id: number): PendingTransfer | undefined;
  mapping?: Mapping;
  metadataOf?: (account: string) => Readonly<Record<string, string>> | undefined;
}

/** A pair's held volume after the decision. */
export interface HeldChange {
  account: string;
  asset: string;
  held: HeldVolume;
}

export interface PendingDecision {
  pending: PendingTransfer;
  held: HeldChange[];
}

/** A post: the hold after it, the held volumes, and the postings of the transaction that moves the money. */
export interface PostDecision extends PendingDecision {
  transfer: Posting[];
}

/** A release (void, expiry): the hold after it, the held volumes, and what each posting released. */
export interface ReleaseDecision extends PendingDecision {
  released: bigint[];
  reason: ReleaseReason;
}

/** Held volumes as a decision changes them, pair by pair in first-touch order. */
class HeldOverlay {
  private readonly changed = new Map<string, HeldChange>();
  constructor(private readonly state: PendingState) {}

  get(account: string, asset: string): HeldVolume {
    return (
      this.changed.get(`${account}\u0000${asset}`)?.held ??
      this.state.held(account, asset) ??
      NO_HOLD
    );
  }

  add(posting: Posting, sign: 1n | -1n): void {
    const { source, destination, asset } = posting;
    const amount = posting.amount * sign;
    const out = this.get(source, asset);
    this.set(source, asset, { ...out, pendingOutput: out.pendingOutput + amount });
    const into = this.get(destination, asset);
    this.set(destination, asset, { ...into, pendingInput: into.pendingInput + amount });
  }

  changes(): HeldChange[] {
    return [...this.changed.values()];
  }

  private set(account: string, asset: string, held: HeldVolume): void {
    if (held.pendingInput < 0n || held.pendingOutput < 0n)
      throw new Error(`held volume of ${account} ${asset} would be negative`);
    this.changed.set(`${account}\u0000${asset}`, { account, asset, held });
  }
}

/**
 * A new hold: its postings reserve money in order, each source's available balance checked after its posting
 * against its contract (by default ≥ 0; `world` exempt; `force` lifts the rule), so an earlier posting of the
 * hold never funds a later one (held money is not spendable). Posted volumes do not change.
 */
export function decideCreatePending(
  state: PendingState,
  request: {
    id: number;
    postings: readonly Posting[];
    metadata?: Record<string, string>;
    reference?: string;
    now: Instant;
    expiresAt?: Instant;
    force?: boolean;
  },
): PendingDecision {
  if (request.postings.length === 0)
    throw new ValidationError('a pending transfer needs at least one posting');
  if (request.expiresAt && sortableInstant(request.expiresAt) <= sortableInstant(request.now))
    throw new ValidationError('expiresAt must be in the future');
  const held = new HeldOverlay(state);
  request.postings.forEach((posting, index) => {
    held.add(posting, 1n);
    if (posting.amount === 0n || posting.source === WORLD || request.force) return;
    checkAvailable(state, posting.source, posting.asset, held.get(posting.source, posting.asset), {
      index,
      amount: posting.amount,
    });
  });
  const pending: PendingTransfer = {
    id: request.id,
    postings: request.postings.map((p) => ({ ...p, posted: 0n, voided: 0n })),
    metadata: request.metadata ?? {},
    ...(request.reference !== undefined ? { reference: request.reference } : {}),
    insertedAt: formatInstant(request.now),
    ...(request.expiresAt
      ? {
          expiresAt: formatInstant(request.expiresAt),
          expiresAtKey: sortableInstant(request.expiresAt),
        }
      : {}),
    status: 'PENDING',
    transactions: [],
  };
  return { pending, held: held.changes() };
}

function checkAvailable(
  state: PendingState,
  account: string,
  asset: string,
  held: HeldVolume,
  posting: { index: number; amount: bigint },
): void {
  const available = availableOf(state.volume(account, asset), held);
  const { contract, index } = contractFor(state.mapping, account);
  if (evaluate(contract.expr, available, state.metadataOf?.(account) ?? {})) return;
  const shortfall = `account "${account}" has insufficient available funds for posting ${posting.index} (${posting.amount} ${asset}): available would be ${available}`;
  throw new InsufficientFundError(
    index === undefined
      ? shortfall
      : `${shortfall}, which breaks ${describeContract(contract, index)}`,
  );
}

/** An unresolved hold, or why it cannot be posted or released (unknown, resolved, or — for a post — expired). */
function openHold(
  state: PendingState,
  id: number,
  now: Instant,
  posting: boolean,
): PendingTransfer {
  const pending = state.pending(id);
  if (!pending) throw new NotFoundError(`pending transfer ${id} not found`);
  if (pending.status !== 'PENDING')
    throw new PendingResolvedError(`pending transfer ${id} is already ${pending.status}`);
  if (posting && isExpired(pending, now))
    throw new PendingExpiredError(`pending transfer ${id} expired at ${pending.expiresAt}`);
  return pending;
}

/** Whether a hold's expiry has come: at `expiresAt` exactly it is expired. */
export function isExpired(pending: PendingTransfer, now: Instant): boolean {
  return pending.expiresAtKey !== undefined && sortableInstant(now) >= pending.expiresAtKey;
}

const remainingOf = (p: PendingPosting) => p.amount - p.posted - p.voided;

/**
 * A post: per posting the amount given (default: all that remains, at most that), moved as a transaction's
 * postings from the held money. `final` releases what remains after it; a hold with nothing left is POSTED.
 * Refused when the hold is resolved (PENDING_RESOLVED) or its expiry has come (PENDING_EXPIRED), whatever a sweeper
 * did: a post and an expiry are decisions of the same sequencer, so they cannot both take the money.
 */
export function decidePostPending(
  state: PendingState,
  id: number,
  request: { now: Instant; txId: number; amounts?: readonly bigint[]; final?: boolean },
): PostDecision {
  const pending = openHold(state, id, request.now, true);
  const { amounts } = request;
  if (amounts && amounts.length !== pending.postings.length)
    throw new ValidationError(
      `amounts: must have one amount per posting (${pending.postings.length})`,
    );
  const held = new HeldOverlay(state);
  const transfer: Posting[] = [];
  const postings = pending.postings.map((p, i) => {
    const remaining = remainingOf(p);
    const amount = amounts ? amounts[i]! : remaining;
    if (amount < 0n || amount > remaining)
      throw new ValidationError(
        `amounts[${i}]: ${amount} is more than the ${remaining} ${p.asset} that remains`,
      );
    const voided = request.final ? remaining - amount : 0n;
    held.add({ ...p, amount: amount + voided }, -1n);
    if (amount > 0n)
      transfer.push({ source: p.source, destination: p.destination, amount, asset: p.asset });
    return { ...p, posted: p.posted + amount, voided: p.voided + voided };
  });
  if (transfer.length === 0) throw new ValidationError('a post must move a positive amount');
  const done = postings.every((p) => remainingOf(p) === 0n);
  return {
    pending: {
      ...pending,
      postings,
      status: done ? 'POSTED' : 'PENDING',
      transactions: [...pending.transactions, request.txId],
    },
    held: held.changes(),
    transfer,
  };
}

/**
 * A release of all that remains: a void (reason VOID), or the sweeper's expiry (EXPIRED), which is no decision at
 * all — undefined — for a hold that was resolved meanwhile or whose expiry has not come: the sweeper's request is
 * decided, never raced.
 */
export function decideReleasePending(
  state: PendingState,
  id: number,
  request: { now: Instant; reason: 'VOID' | 'EXPIRED' },
): ReleaseDecision | undefined {
  if (request.reason === 'EXPIRED') {
    const pending = state.pending(id);
    if (pending?.status !== 'PENDING' || !isExpired(pending, request.now)) return undefined;
  }
  const pending = openHold(state, id, request.now, false);
  const held = new HeldOverlay(state);
  const released = pending.postings.map(remainingOf);
  pending.postings.forEach((p, i) => {
    held.add({ ...p, amount: released[i]! }, -1n);
  });
  return {
    pending: {
      ...pending,
      postings: pending.postings.map((p, i) => ({ ...p, voided: p.voided + released[i]! })),
      status: request.reason === 'VOID' ? 'VOIDED' : 'EXPIRED',
    },
    held: held.changes(),
    released,
    reason: request.reason,
  };
}

/** A hold as the API answers it: each posting with what was posted, released and what remains. */
export function pendingView(pending: PendingTransfer) {
  return {
    id: pending.id,
    postings: pending.postings.map((p) => ({
      source: p.source,
      destination: p.destination,
      amount: p.amount,
      asset: p.asset,
      posted: p.posted,
      voided: p.voided,
      remaining: remainingOf(p),
    })),
    metadata: pending.metadata,
    insertedAt: pending.insertedAt,
    ...(pending.expiresAt !== undefined ? { expiresAt: pending.expiresAt } : {}),
    status: pending.status,
    transactions: pending.transactions,
  };
}

export type PendingView = ReturnType<typeof pendingView>;
