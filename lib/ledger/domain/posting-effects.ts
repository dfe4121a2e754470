import { formatInstant, type Instant, sortableInstant } from '../../time/instant.js';
import { checkAvailableAfter } from './available.js';
import type { AccountState, LedgerChange, LedgerState, Move, Reads } from './change.js';
import { checkLimits } from './limits.js';
import { applyPostings, type Posting, touchedPairs, type VolumeMap } from './postings.js';
import { type VolumesView, volumesView } from './transaction.js';

/** What a set of postings reads: each (account, asset) volume and each account (plus accounts given metadata). */
export function postingReads(
  postings: readonly Posting[],
  extraAccounts: readonly string[] = [],
): Reads {
  const pairs = touchedPairs(postings);
  return { pairs, accounts: [...new Set([...pairs.map(([a]) => a), ...extraAccounts])] };
}

export interface PostingEffects {
  post: VolumesView;
  volumes: LedgerChange['volumes'];
  moves: Move[];
  accounts: LedgerChange['accounts'];
  accountsAdded: number;
}

/**
 * Applies postings to the state's volumes (INSUFFICIENT_FUND unless allowed, see applyPostings) and says what
 * changes: every touched volume, one move per pair, and each account that is new, gained an asset or
 * metadata, or was used earlier than its recorded first usage (a back-dated transaction).
 */
export function postingEffects(
  state: LedgerState,
  postings: readonly Posting[],
  options: {
    force: boolean;
    /** Effective time of the transaction. */
    at: Instant;
    now: Instant;
    txId: number;
    accountMetadata?: Record<string, Record<string, string>>;
    /** Whether the caller asked `force` itself: it lifts only the limits that allow it (a script's clauses never). */
    limitsForce?: boolean;
  },
): PostingEffects {
  const pairs = touchedPairs(postings);
  const before = volumesBefore(state, pairs);
  // Contracts read the account's metadata as stored before this transaction (docs/decisions/ledger.md, "Ledger mapping").
  const metadataOf = (account: string) => state.account(account)?.metadata;
  const after = applyPostings(postings, before, {
    force: options.force,
    ...(state.mapping ? { mapping: state.mapping, metadataOf } : {}),
  });
  checkLimits(
    state.mapping?.limits,
    pairs.map(([account, asset]) => ({
      account,
      asset,
      before: before.get(account)?.get(asset) ?? { input: 0n, output: 0n },
      after: after.get(account)!.get(asset)!,
    })),
    options.limitsForce ?? false,
  );
  // Held money is not spendable (PENDING_TRANSFERS): the overdraft rule applies to the available balance.
  checkAvailableAfter(
    {
      held: (account, asset) => state.held?.(account, asset),
      ...(state.mapping ? { mapping: state.mapping } : {}),
      metadataOf,
    },
    postings,
    (account, asset) => after.get(account)!.get(asset)!,
    options.force,
  );
  const atKey = sortableInstant(options.at);
  const volumes = pairs.map(([account, asset]) => ({
    account,
    asset,
    volume: after.get(account)!.get(asset)!,
  }));
  const roles = rolesOf(postings);
  const moves: Move[] = pairs.map(([account, asset]) => {
    const pre = before.get(account)?.get(asset) ?? { input: 0n, output: 0n };
    const post = after.get(account)!.get(asset)!;
    return {
      account,
      asset,
      txId: options.txId,
      at: atKey,
      input: post.input - pre.input,
      output: post.output - pre.output,
      ...roles.get(`${account}\u0000${asset}`)!,
    };
  });
  const { accounts, accountsAdded } = accountChanges(state, pairs, {
    accountMetadata: options.accountMetadata ?? {},
    at: options.at,
    atKey,
    now: options.now,
  });
  return { post: volumesView(after), volumes, moves, accounts, accountsAdded };
}

/** The stored volumes of the touched pairs (a pair never touched before has none). */
function volumesBefore(state: LedgerState, pairs: ReadonlyArray<[string, string]>): VolumeMap {
  const before: VolumeMap = new Map();
  for (const [account, asset] of pairs) {
    const volume = state.volume(account, asset);
    if (!volume) continue;
    if (!before.has(account)) before.set(account, new Map());
    before.get(account)!.set(asset, volume);
  }
  return before;
}

/** Whether each (account, asset) pair is a source, a destination or both of the postings, by `account\0asset`. */
function rolesOf(
  postings: readonly Posting[],
): Map<string, { source: boolean; destination: boolean }> {
  const roles = new Map<string, { source: boolean; destination: boolean }>();
  for (const p of postings) {
    roles.set(`${p.source}\u0000${p.asset}`, {
      source: true,
      destination: roles.get(`${p.source}\u0000${p.asset}`)?.destination ?? false,
    });
    roles.set(`${p.destination}\u0000${p.asset}`, {
      source: roles.get(`${p.destination}\u0000${p.asset}`)?.source ?? false,
      destination: true,
    });
  }
  return roles;
}

/**
 * Each account that is new, gained an asset or metadata, or was used earlier than its recorded first usage (a
 * back-dated transaction), with how many are new.
 */
function accountChanges(
  state: LedgerState,
  pairs: ReadonlyArray<[string, string]>,
  options: {
    accountMetadata: Record<string, Record<string, string>>;
    at: Instant;
    atKey: string;
    now: Instant;
  },
): { accounts: LedgerChange['accounts']; accountsAdded: number } {
  const { accountMetadata, atKey } = options;
  const nowText = formatInstant(options.now);
  const accounts: LedgerChange['accounts'] = [];
  let accountsAdded = 0;
  for (const address of new Set([...pairs.map(([a]) => a), ...Object.keys(accountMetadata)])) {
    const existing = state.account(address);
    const extra = Object.hasOwn(accountMetadata, address) ? accountMetadata[address] : undefined; // not Object.prototype's `constructor`
    const earlier = existing !== undefined && atKey < existing.firstUsageKey;
    const known = existing?.assets ?? [];
    const assets = [
      ...new Set([...known, ...pairs.filter(([a]) => a === address).map(([, asset]) => asset)]),
    ].sort();
    if (existing && !extra && !earlier && assets.length === known.length) continue;
    if (!existing) accountsAdded++;
    const next: AccountState = {
      address,
      metadata: { ...(existing?.metadata ?? {}), ...(extra ?? {}) },
      assets,
      firstUsage: earlier || !existing ? formatInstant(options.at) : existing.firstUsage,
      firstUsageKey: earlier || !existing ? atKey : existing.firstUsageKey,
      insertionDate: existing?.insertionDate ?? nowText,
      updatedAt: nowText,
    };
    accounts.push(existing ? { after: next, before: existing } : { after: next });
  }
  return { accounts, accountsAdded };
}

/** An account touched for the first time by a metadata write (no volumes yet). */
export function newAccount(
  address: string,
  now: Instant,
  metadata: Record<string, string>,
): AccountState {
  const nowText = formatInstant(now);
  return {
    address,
    metadata,
    assets: [],
    firstUsage: nowText,
    firstUsageKey: sortableInstant(now),
    insertionDate: nowText,
    updatedAt: nowText,
  };
}
