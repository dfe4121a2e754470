import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { type AccountRecord, type AccountVolumes, addBalances } from '../domain/account.js';
import {
  type AddressFilter,
  isSegmentFilter,
  type SegmentFilter,
} from '../domain/account-filter.js';
import {
  accountIndexQuery,
  readVolumes,
  segmentIndexQuery,
  toAccountRecord,
} from './account-items.js';
import { type LedgerRef, ledgerKeys } from './keys.js';

/**
 * GET /v2/<ledger>/aggregate/balances: the per-asset sum of the balances of every account matching the
 * address filter (every account of the ledger without one).
 *
 * Cost: no aggregate is maintained, so this reads, page by page, every matching account item through gsi1
 * (eventually consistent: 0.5 RCU per 4 KB of items read, ~25 small account items per RCU) and then every one
 * of their volume items by key (strongly consistent BatchGetItem: 1 RCU per (account, asset)). Cost and
 * latency grow with accounts x assets: 100,000 accounts holding one asset each is ~104,000 RCU and
 * ~1,000 BatchGetItem calls, tens of seconds: past API Gateway's 29 s limit the call fails, so ledgers that
 * large need a maintained aggregate. It is bounded by the ledger (never a table scan), a narrow address
 * prefix keeps it cheap, and only one index page of items is held in memory at a time.
 *
 * `volumesOf` reads a page's volumes: by default the current volume items; at a point in time, the volumes
 * then (point-in-time-volumes.ts: a few more reads per account and asset changed since).
 */
export async function aggregateBalances(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  filter: AddressFilter | SegmentFilter | undefined,
  volumesOf: (accounts: AccountRecord[]) => Promise<Map<string, AccountVolumes>> = (accounts) =>
    readVolumes(doc, table, ledger, accounts),
): Promise<Map<string, bigint>> {
  const sums = new Map<string, bigint>();
  const segments = filter && isSegmentFilter(filter) ? filter : undefined;
  let start: Record<string, unknown> | undefined;
  do {
    const result = await doc.send(
      new QueryCommand({
        ...(segments
          ? segmentIndexQuery(table, ledger, segments)
          : accountIndexQuery(table, ledger, filter as AddressFilter | undefined)),
        ...(segments
          ? {}
          : {
              // Only what the volume keys need: smaller responses, so more accounts per 1 MB page.
              ProjectionExpression: '#address, #assets',
              ExpressionAttributeNames: { '#address': 'address', '#assets': 'assets' },
            }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const items = (result.Items ?? []) as Record<string, unknown>[];
    // Segment index items name the address only: the accounts (and the assets they hold) are read by key.
    const accounts = segments
      ? (
          await batchGetInOrder(
            doc,
            table,
            items.map((i) => ledgerKeys.account(ledger, String(i.address))),
          )
        )
          .filter((i): i is Record<string, unknown> => i !== undefined)
          .map(toAccountRecord)
      : items.map(toAccountRecord);
    const volumes = await volumesOf(accounts);
    for (const byAsset of volumes.values()) {
      addBalances(
        sums,
        Object.entries(byAsset).map(([asset, v]) => ({ asset, balance: v.balance })),
      );
    }
    start = result.LastEvaluatedKey;
  } while (start);
  return sums;
}
