import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import type { AccountRecord, AccountVolumes } from '../domain/account.js';
import {
  type AddressFilter,
  INDEXED_SEGMENTS,
  type SegmentFilter,
} from '../domain/account-filter.js';
import { amountOfAttribute } from './amount-encoding.js';
import { type LedgerRef, ledgerKeys } from './keys.js';

export function toAccountRecord(item: Record<string, unknown>): AccountRecord {
  return {
    address: String(item.address),
    metadata: (item.metadata ?? {}) as Record<string, string>,
    firstUsage: String(item.firstUsage),
    insertionDate: String(item.insertionDate),
    updatedAt: String(item.updatedAt),
    assets: [...((item.assets as Iterable<string> | undefined) ?? [])],
  };
}

/** A volume item's asset and volumes; the balance is derived, so it cannot disagree with input and output. */
export function toAssetVolume(item: Record<string, unknown>) {
  const input = amountOfAttribute(item.input);
  const output = amountOfAttribute(item.output);
  return { asset: String(item.asset), volume: { input, output, balance: input - output } };
}

/**
 * The gsi1 query listing a ledger's accounts by address, narrowed by an address filter: an exact address is
 * one key, a prefix is `begins_with` on the sort key. gsi1 reads are eventually consistent (a new account may
 * take a moment to be listed); reads by address are not.
 */
export function accountIndexQuery(
  table: string,
  ledger: LedgerRef,
  filter: AddressFilter | undefined,
): QueryCommandInput {
  const values: Record<string, string> = { ':p': ledgerKeys.accountList(ledger) };
  let condition = 'gsi1pk = :p';
  if (filter) {
    values[':a'] = filter.address;
    condition += filter.prefix ? ' AND begins_with(gsi1sk, :a)' : ' AND gsi1sk = :a';
  }
  return {
    TableName: table,
    IndexName: 'gsi1',
    KeyConditionExpression: condition,
    ExpressionAttributeValues: values,
  };
}

/**
 * Volumes of many accounts by key, from each account's `assets` list: one strongly consistent read per
 * (account, asset), by key (BatchGetItem). No query per account.
 */
export async function readVolumes(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  accounts: readonly AccountRecord[],
): Promise<Map<string, AccountVolumes>> {
  const keys = accounts.flatMap((a) =>
    a.assets.map((asset) => ledgerKeys.volume(ledger, a.address, asset)),
  );
  const items = await batchGetInOrder(doc, table, keys);
  const volumes = new Map<string, AccountVolumes>(accounts.map((a) => [a.address, {}]));
  for (const item of items) {
    // Volumes and the `assets` list are written in one transaction, so a listed volume is never missing;
    // were one missing, the account would show without it rather than failing the page.
    if (!item) continue;
    const { asset, volume } = toAssetVolume(item);
    volumes.get(String(item.account))![asset] = volume;
  }
  return volumes;
}

/**
 * The segment index query of a pattern: the partition of its first fixed segment (with the pattern's segment
 * count), the other fixed segments as a filter on the items' `segments` — within that one partition.
 */
export function segmentIndexQuery(table: string, ledger: LedgerRef, filter: SegmentFilter) {
  const { segments } = filter;
  const first = firstIndexedSegment(filter);
  const others = segments.flatMap((s, i) => (s !== null && i !== first ? [i] : []));
  return {
    TableName: table,
    KeyConditionExpression: 'pk = :p',
    ...(others.length > 0
      ? {
          FilterExpression: others.map((i) => `#s[${i}] = :s${i}`).join(' AND '),
          ExpressionAttributeNames: { '#s': 'segments' },
        }
      : {}),
    ExpressionAttributeValues: {
      ':p': segmentPartition(ledger, filter),
      ...Object.fromEntries(others.map((i) => [`:s${i}`, segments[i]])),
    },
    ConsistentRead: true,
  };
}

const firstIndexedSegment = (filter: SegmentFilter) =>
  filter.segments.findIndex((s, i) => s !== null && i < INDEXED_SEGMENTS);

/** The index partition a segment pattern reads: its segment count and first fixed (indexed) segment. */
export function segmentPartition(ledger: LedgerRef, filter: SegmentFilter): string {
  const first = firstIndexedSegment(filter);
  return ledgerKeys.addressSegmentPartition(
    ledger,
    filter.segments.length,
    first,
    filter.segments[first]!,
  );
}
