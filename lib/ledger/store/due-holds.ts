import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { holdDueKeys, type LedgerRef, ledgerOfHold } from './keys.js';

/** A ledger with holds due by now, found on a ledger table's `due` index, and its most overdue one's expiry. */
export interface DueLedger {
  ledger: LedgerRef;
  /** When its oldest due hold found expired (what the sweep's lag is measured from). */
  oldestDueMs: number;
}

/**
 * The ledgers of `table` (every environment) with holds due by `sortableNow`: one Query per shard of the `due`
 * index (keys.ts `holdDueKeys`), at most `limit` entries each, oldest first. The index is eventually consistent and
 * only says where to look: the sweep reads each ledger's due holds again, strongly (PendingReads.due), and the
 * release is decided by the ledger's writer, so an entry seen late or twice releases nothing twice.
 */
export async function dueHoldLedgers(
  doc: DynamoDBDocumentClient,
  table: string,
  sortableNow: string,
  limit: number,
): Promise<DueLedger[]> {
  const byLedger = new Map<string, DueLedger>();
  const items = await everyShard(doc, table, {
    KeyConditionExpression: 'dueKey = :k AND dueAt <= :now',
    ExpressionAttributeValues: { ':now': holdDueKeys.dueBy(sortableNow) },
    ProjectionExpression: 'pk, dueAt',
    Limit: limit,
  });
  for (const item of items) {
    const ledger = ledgerOfHold(String(item.pk));
    if (!ledger) continue;
    const key = `${ledger.environment}\u0000${ledger.name}`;
    const dueMs = dueAtMs(String(item.dueAt));
    const seen = byLedger.get(key);
    if (!seen || dueMs < seen.oldestDueMs) byLedger.set(key, { ledger, oldestDueMs: dueMs });
  }
  return [...byLedger.values()];
}

/**
 * When the next hold of `table` (any environment) falls due: the smallest expiry on the `due` index, one
 * single-entry Query per shard; undefined when no hold is waiting. An entry already due counts (its time is in the
 * past), so a caller waiting for this instant sweeps at once.
 */
export async function earliestHoldDueMs(
  doc: DynamoDBDocumentClient,
  table: string,
): Promise<number | undefined> {
  const items = await everyShard(doc, table, {
    KeyConditionExpression: 'dueKey = :k',
    ProjectionExpression: 'dueAt',
    Limit: 1,
  });
  const dues = items.map((item) => dueAtMs(String(item.dueAt)));
  return dues.length > 0 ? Math.min(...dues) : undefined;
}

// `dueAt` starts with the sortable instant (lib/time/instant.ts): its milliseconds are its first 23 characters.
const dueAtMs = (dueAt: string) => Date.parse(`${dueAt.slice(0, 23)}Z`);

/** One Query of the `due` index per shard (`:k`, the shard, is added to the values), every page's items. */
async function everyShard(
  doc: DynamoDBDocumentClient,
  table: string,
  query: Pick<
    QueryCommandInput,
    'KeyConditionExpression' | 'ExpressionAttributeValues' | 'ProjectionExpression' | 'Limit'
  >,
): Promise<Array<Record<string, unknown>>> {
  const pages = await Promise.all(
    holdDueKeys.shards().map((shard) =>
      doc.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'due',
          ...query,
          ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':k': shard },
        }),
      ),
    ),
  );
  return pages.flatMap((p) => p.Items ?? []);
}
