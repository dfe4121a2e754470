import { applyPostings, touchedPairs, type Posting, type VolumeMap } from '../domain/postings.js';
import { formatInstant, sortableInstant, type Instant } from '../../time/instant.js';
import { isEnabled, type FeatureSet } from '../domain/features.js';
import { volumesView, type VolumesView } from '../domain/transaction.js';
import { ledgerKeys, type ItemKey } from '../store/keys.js';
import { accountMetadataIndexWrites } from './account-metadata-index.js';
import { addressSegmentIndexWrites } from './address-segment-index.js';
import type { Snapshot, Write } from '../store/writer.js';

/** Items a set of postings needs to read: each (account, asset) volume and each account. */
export function postingReads(ledger: string, postings: readonly Posting[], extraAccounts: readonly string[] = []): ItemKey[] {
  const pairs = touchedPairs(postings);
  const accounts = [...new Set([...pairs.map(([a]) => a), ...extraAccounts])];
  return [...pairs.map(([account, asset]) => ledgerKeys.volume(ledger, account, asset)), ...accounts.map((a) => ledgerKeys.account(ledger, a))];
}

export interface PostingEffects {
  post: VolumesView;
  writes: Write[];
  accountsAdded: number;
}

/**
 * Applies postings to the snapshot's volumes (INSUFFICIENT_FUND unless allowed) and returns the writes that
 * record the result: every touched volume, and each account that is new, gained an asset or metadata, or
 * was used earlier than its recorded first usage (a back-dated transaction).
 */
export function postingEffects(
  snapshot: Snapshot,
  ledger: string,
  postings: readonly Posting[],
  options: {
    force: boolean;
    at: Instant;
    now: Instant;
    table: string;
    /** Id of the transaction the postings belong to; with MOVES_HISTORY, its moves are recorded. */
    txId: number;
    /** The ledger's features: which histories and indexes the writes keep. */
    features: FeatureSet;
    accountMetadata?: Record<string, Record<string, string>>;
  },
): PostingEffects {
  const pairs = touchedPairs(postings);
  const accountMetadata = options.accountMetadata ?? {};
  const accounts = [...new Set([...pairs.map(([a]) => a), ...Object.keys(accountMetadata)])];
  const before = readVolumes(snapshot, ledger, pairs);
  // Contracts read the account's metadata as stored before this transaction (docs/decisions.md, "Ledger mapping").
  const metadataOf = (account: string) => snapshot.get(ledgerKeys.account(ledger, account))?.metadata as Record<string, string> | undefined;
  const after = applyPostings(postings, before, { force: options.force, ...(snapshot.mapping ? { mapping: snapshot.mapping, metadataOf } : {}) });
  const nowText = formatInstant(options.now);
  const atKey = sortableInstant(options.at);

  const movesHistory = isEnabled(options.features, 'MOVES_HISTORY');
  const tracking = movesHistory && isEnabled(options.features, 'MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES');
  const balanceIndex = isEnabled(options.features, 'INDEX_ACCOUNT_BALANCES');
  const moveKey = ledgerKeys.moveSort(atKey, options.txId);
  // Decided once per pair, from the snapshot: the volume item records it, the move item follows it.
  const orders = new Map(pairs.map(([account, asset]) => [`${account}\u0000${asset}`, tracking ? moveOrder(snapshot.get(ledgerKeys.volume(ledger, account, asset)), moveKey) : undefined]));
  const orderOf = (account: string, asset: string) => orders.get(`${account}\u0000${asset}`);
  const writes: Write[] = pairs.map(([account, asset]) => {
    const volume = after.get(account)!.get(asset)!;
    const balance = volume.input - volume.output;
    const order = orderOf(account, asset);
    const ordered = order ? { lastMoveKey: order.lastMoveKey, lateMoves: order.lateMoves } : {};
    // INDEX_ACCOUNT_BALANCES: listed on gsi1 by (asset, balance) for `balance[ASSET]` filters.
    const indexed = balanceIndex ? { gsi1pk: ledgerKeys.balancesByAsset(ledger, asset), gsi1sk: ledgerKeys.balanceSort(balance, account) } : {};
    return {
      item: {
        Put: {
          TableName: options.table,
          Item: { ...ledgerKeys.volume(ledger, account, asset), account, asset, input: volume.input, output: volume.output, balance, ...ordered, ...indexed },
        },
      },
    };
  });
  if (movesHistory) writes.push(...moveWrites(ledger, options.table, pairs, before, after, atKey, options.txId, (account, asset) => orderOf(account, asset)?.lateOf));
  let accountsAdded = 0;
  for (const address of accounts) {
    const existing = snapshot.get(ledgerKeys.account(ledger, address));
    const extra = accountMetadata[address];
    const earlier = existing !== undefined && atKey < String(existing.firstUsageKey);
    // The account item lists the assets it holds, so account lists can fetch volumes without a query each.
    const known = (existing?.assets as string[] | undefined) ?? [];
    const assets = [...new Set([...known, ...pairs.filter(([a]) => a === address).map(([, asset]) => asset)])].sort();
    if (existing && !extra && !earlier && assets.length === known.length) continue;
    if (!existing) {
      accountsAdded++;
      writes.push(...addressSegmentIndexWrites(options.table, ledger, address, options.features));
    }
    const before = (existing?.metadata as Record<string, string> | undefined) ?? {};
    const metadata = { ...before, ...(extra ?? {}) };
    writes.push(...accountMetadataIndexWrites(options.table, ledger, address, before, metadata));
    writes.push({
      item: {
        Put: {
          TableName: options.table,
          Item: accountItem(ledger, address, existing, {
            metadata,
            assets,
            ...(earlier || !existing ? { firstUsage: formatInstant(options.at), firstUsageKey: atKey } : {}),
            updatedAt: nowText,
          }),
        },
      },
    });
  }
  return { post: volumesView(after), writes, accountsAdded };
}

/**
 * Where a new move falls in its pair's order. The volume item keeps the greatest move key so far and how many
 * moves arrived late (with a key below it); a late move records that greatest key as `lateOf` and is written
 * twice (see moveWrites).
 */
function moveOrder(volume: Record<string, unknown> | undefined, moveKey: string): { lastMoveKey: string; lateMoves: number; lateOf?: string } {
  const last = typeof volume?.lastMoveKey === 'string' ? volume.lastMoveKey : '';
  const lateMoves = Number(volume?.lateMoves ?? 0);
  return last > moveKey ? { lastMoveKey: last, lateMoves: lateMoves + 1, lateOf: last } : { lastMoveKey: moveKey, lateMoves };
}

/**
 * MOVES_HISTORY: one item per (account, asset) a transaction moved, keyed by its effective time, holding what
 * moved in and out and the volumes right after it (in commit order). Volume queries over a time window sum
 * these over a key range. When effective volumes are tracked, a move with a key below the pair's greatest
 * (a back-dated transaction) also records that key (`lateOf`) and gets a copy in the pair's late-move
 * partition: lib/ledger/domain/effective-volumes.ts explains how reads use both.
 */
function moveWrites(
  ledger: string,
  table: string,
  pairs: Array<[string, string]>,
  before: VolumeMap,
  after: VolumeMap,
  atKey: string,
  txId: number,
  lateOfPair: (account: string, asset: string) => string | undefined,
): Write[] {
  return pairs.flatMap(([account, asset]) => {
    const pre = before.get(account)?.get(asset) ?? { input: 0n, output: 0n };
    const post = after.get(account)!.get(asset)!;
    const input = post.input - pre.input;
    const output = post.output - pre.output;
    const lateOf = lateOfPair(account, asset);
    const move: Write = {
      item: {
        Put: {
          TableName: table,
          Item: { ...ledgerKeys.move(ledger, account, asset, atKey, txId), txId, input, output, postInput: post.input, postOutput: post.output, ...(lateOf ? { lateOf } : {}) },
        },
      },
    };
    if (!lateOf) return [move];
    return [move, { item: { Put: { TableName: table, Item: { ...ledgerKeys.lateMove(ledger, account, asset, atKey, txId), txId, input, output } } } }];
  });
}

/** A whole account item: the existing one (if any) with the given fields replaced. */
export function accountItem(
  ledger: string,
  address: string,
  existing: Record<string, unknown> | undefined,
  fields: { metadata?: Record<string, string>; assets?: string[]; firstUsage?: string; firstUsageKey?: string; updatedAt: string },
): Record<string, unknown> {
  return {
    ...ledgerKeys.account(ledger, address),
    gsi1pk: ledgerKeys.accountList(ledger),
    gsi1sk: address,
    address,
    metadata: fields.metadata ?? (existing?.metadata as Record<string, string> | undefined) ?? {},
    assets: fields.assets ?? (existing?.assets as string[] | undefined) ?? [],
    firstUsage: fields.firstUsage ?? existing?.firstUsage ?? fields.updatedAt,
    firstUsageKey: fields.firstUsageKey ?? existing?.firstUsageKey ?? '',
    insertionDate: existing?.insertionDate ?? fields.updatedAt,
    updatedAt: fields.updatedAt,
  };
}

function readVolumes(snapshot: Snapshot, ledger: string, pairs: Array<[string, string]>): VolumeMap {
  const map: VolumeMap = new Map();
  for (const [account, asset] of pairs) {
    const item = snapshot.get(ledgerKeys.volume(ledger, account, asset));
    if (!item) continue;
    let assets = map.get(account);
    if (!assets) map.set(account, (assets = new Map()));
    assets.set(asset, { input: BigInt(item.input as bigint), output: BigInt(item.output as bigint) });
  }
  return map;
}
