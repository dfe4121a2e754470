import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { MetadataHistoryAt } from '../domain/point-in-time.js';
import { type LedgerRef, ledgerKeys } from './keys.js';

export type RevisionTarget =
  | { type: 'ACCOUNT'; address: string }
  | { type: 'TRANSACTION'; id: number };

/**
 * Where metadata revisions live (ACCOUNT_/TRANSACTION_METADATA_HISTORY; written by the revision block of
 * change-items.ts): an account's in its own partition (`MH#<log id>`, between its `A` item and its volumes), a
 * transaction's in a partition of its own (`<log id>`), both sorted by log id, so newest first is one
 * descending Query.
 */
const ACCOUNT_REVISION = 'MH#';

/** Revisions read per Query: a target rarely changes many times after the point in time asked about. */
const REVISIONS_PER_READ = 8;

/**
 * A target's revisions newest first, until the first one dated at or before `pit` (dates are the writes' times,
 * which follow log order). Cost: one Query per 8 revisions dated after `pit`, usually one.
 */
export async function metadataHistoryAt(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  target: RevisionTarget,
  pit: string,
): Promise<MetadataHistoryAt> {
  const account = target.type === 'ACCOUNT';
  const pk = account
    ? ledgerKeys.accountPartition(ledger, target.address)
    : ledgerKeys.transactionRevisions(ledger, target.id);
  let earliest: Record<string, unknown> | undefined;
  let start: Record<string, unknown> | undefined;
  do {
    const result = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: account ? 'pk = :p AND begins_with(sk, :r)' : 'pk = :p',
        ExpressionAttributeValues: { ':p': pk, ...(account ? { ':r': ACCOUNT_REVISION } : {}) },
        ScanIndexForward: false,
        Limit: REVISIONS_PER_READ,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of (result.Items ?? []) as Record<string, unknown>[]) {
      if (sortableInstant(parseInstant(String(item.date), 'date')) <= pit)
        return { atOrBefore: item.metadata as Record<string, string> };
      earliest = item;
    }
    start = result.LastEvaluatedKey;
  } while (start);
  if (!earliest) return {};
  return {
    earliestAfter:
      earliest.before !== undefined ? { before: earliest.before as Record<string, string> } : {},
  };
}
