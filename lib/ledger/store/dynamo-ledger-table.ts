import {
  type DynamoDBDocumentClient,
  TransactGetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { batchPut } from '../../dynamo/batch-put.js';
import { isConditionFailure, isTransactionConflict } from '../../dynamo/errors.js';
import type { LedgerRecord } from '../domain/change.js';
import { clearPendingBatch, putAbsentItems } from './batch-settle.js';
import { commitWrites } from './commit.js';
import { headFromItem } from './head.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import { readLogRange } from './log-pages.js';
import { floorItem } from './transaction-lookup.js';

/** The write engine's port on DynamoDB: one ledger's items in `table`. */
export function dynamoLedgerTable(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
): LedgerTable {
  const headKey = ledgerKeys.head(ledger);
  return {
    getItems: (keys) => batchGetInOrder(doc, table, keys),
    floorKeys: (keys) =>
      Promise.all(
        keys.map(async (key) => {
          const found = await floorItem(doc, table, key, true);
          return found ? { pk: String(found.pk), sk: String(found.sk) } : undefined;
        }),
      ),
    async readSnapshot(keys) {
      try {
        const { Responses = [] } = await doc.send(
          new TransactGetCommand({
            TransactItems: keys.map((Key) => ({ Get: { TableName: table, Key } })),
          }),
        );
        return keys.map((_, i) => Responses[i]?.Item);
      } catch (err) {
        // DynamoDB cancels a TransactGetItems that meets a transaction writing one of its items.
        if (isTransactionConflict(err)) return 'conflict';
        throw err;
      }
    },
    async takeHead(owner, leaseUntilMs) {
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: headKey,
            UpdateExpression:
              'SET leaseOwner = :me, leaseUntil = :until, #v = if_not_exists(#v, :zero) + :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#v': 'version' },
            ExpressionAttributeValues: {
              ':me': owner,
              ':until': leaseUntilMs,
              ':zero': 0,
              ':one': 1,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return headFromItem(Attributes!);
      } catch (err) {
        if (isConditionFailure(err)) throw new Error(`ledger ${ledger.name} has no HEAD item`);
        throw err;
      }
    },
    commit: (initial, next, writes, options) =>
      commitWrites(doc, table, headKey, initial, next, [...writes], options),
    putItems: (items, { ifAbsent }) =>
      ifAbsent ? putAbsentItems(doc, table, items) : batchPut(doc, table, items),
    clearPending: (version) => clearPendingBatch(doc, table, ledger, version),
    readLogRange: (first, last) => readLogRange(doc, table, ledger, first, last),
  };
}

/**
 * Each ledger's port, as a writer is configured: the one it was given (`tableOf`: memory, the AWS model), or the
 * ledger's bucket table on DynamoDB through `doc`.
 */
export function ledgerTables(options: {
  doc?: DynamoDBDocumentClient;
  tableFor: (bucket: string) => string;
  tableOf?: (ledger: LedgerRecord) => LedgerTable;
}): (ledger: LedgerRecord) => LedgerTable {
  const { doc, tableFor, tableOf } = options;
  if (tableOf) return tableOf;
  if (!doc) throw new Error('a ledger writer needs its tables: tableOf or doc');
  return (ledger) => dynamoLedgerTable(doc, tableFor(ledger.bucket), ledger);
}
