/**
 * Point-in-time reads through the official SDK, unmodified: its `pit` (a Date, sent as ISO text), `order`,
 * `useInsertionDate` and counts must reach the routes and its strict parsing must accept the answers.
 */
import type { SDK } from '@formance/formance-sdk';
import { ErrorsV2ErrorResponse } from '@formance/formance-sdk/sdk/models/ledger/errorsv2errorresponse.js';
import { V2ListTransactionsOrder } from '@formance/formance-sdk/sdk/models/operations/v2listtransactions.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type InProcessPlatform,
  startInProcessSdkPlatform,
} from '../support/in-process-platform.js';

let platform: InProcessPlatform;
let sdk: SDK;
const ledger = 'sdk-pit';
const day = 86_400_000;
// Transactions back-dated against the platform's own clock, which stamps insertedAt.
const now = Date.now();
const dated = (daysAgo: number) => new Date(now - daysAgo * day);

beforeAll(async () => {
  ({ platform, sdk } = await startInProcessSdkPlatform());
  await sdk.ledger.v2.createLedger({ ledger, v2CreateLedgerRequest: {} });
  const post = (
    source: string,
    destination: string,
    amount: bigint,
    daysAgo: number,
    metadata: Record<string, string> = {},
  ) =>
    sdk.ledger.v2.createTransaction({
      ledger,
      v2PostTransaction: {
        postings: [{ source, destination, amount, asset: 'USD/2' }],
        timestamp: dated(daysAgo),
        metadata,
      },
    });
  await post('world', 'users:1', 100n, 60, { v: '1' });
  await post('users:1', 'users:2', 30n, 30);
  await sdk.ledger.v2.addMetadataOnTransaction({ ledger, id: 1n, requestBody: { v: '2' } });
});

afterAll(async () => {
  await platform?.stop();
});

describe('@formance/formance-sdk 7: point-in-time reads', () => {
  it('lists and counts transactions at a point in time, by id or by timestamp, with metadata as it was', async () => {
    const pit = dated(45);
    const list = await sdk.ledger.v2.listTransactions({
      ledger,
      pit,
      order: V2ListTransactionsOrder.Effective,
    });
    const data = list.v2TransactionsCursorResponse!.cursor.data;
    expect(data.map((t) => t.id)).toEqual([1n]);
    expect(data[0]!.metadata).toEqual({ v: '1' });
    const count = await sdk.ledger.v2.countTransactions({ ledger, pit });
    expect(count.rawResponse.headers.get('count')).toBe('1');
    const got = await sdk.ledger.v2.getTransaction({ ledger, id: 1n, pit });
    expect(got.v2GetTransactionResponse?.data.metadata).toEqual({ v: '1' });
    const current = await sdk.ledger.v2.listTransactions({ ledger });
    expect(
      current.v2TransactionsCursorResponse!.cursor.data.map((t) => [t.id, t.metadata]),
    ).toEqual([
      [2n, {}],
      [1n, { v: '2' }],
    ]);
  });

  it('reads, lists and counts accounts at a point in time', async () => {
    const pit = dated(45);
    const account = await sdk.ledger.v2.getAccount({
      ledger,
      address: 'users:1',
      pit,
      expand: 'volumes,effectiveVolumes',
    });
    // Dated 60 days ago but written just now: moved by effective time, not yet by insertion time.
    expect(account.v2AccountResponse?.data.effectiveVolumes).toEqual({
      'USD/2': { input: 100n, output: 0n, balance: 100n },
    });
    expect(account.v2AccountResponse?.data.volumes).toEqual({});
    const listed = await sdk.ledger.v2.listAccounts({ ledger, pit });
    expect(listed.v2AccountsCursorResponse!.cursor.data.map((a) => a.address)).toEqual([
      'users:1',
      'world',
    ]);
    const count = await sdk.ledger.v2.countAccounts({ ledger, pit });
    expect(count.rawResponse.headers.get('count')).toBe('2');
    const err = await sdk.ledger.v2.getAccount({ ledger, address: 'users:2', pit }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ErrorsV2ErrorResponse);
    expect((err as ErrorsV2ErrorResponse).errorCode).toBe('NOT_FOUND');
  });

  it('aggregates balances at a point in time on either clock', async () => {
    const effective = await sdk.ledger.v2.getBalancesAggregated({
      ledger,
      pit: dated(45),
      query: { $match: { address: 'users:' } },
    });
    expect(effective.v2AggregateBalancesResponse?.data).toEqual({ 'USD/2': 100n });
    const inserted = await sdk.ledger.v2.getBalancesAggregated({
      ledger,
      pit: dated(45),
      useInsertionDate: true,
    });
    expect(inserted.v2AggregateBalancesResponse?.data).toEqual({});
    const later = await sdk.ledger.v2.getBalancesAggregated({
      ledger,
      pit: new Date(Date.now() + 60_000),
      useInsertionDate: true,
      query: { $match: { address: 'users:' } },
    });
    expect(later.v2AggregateBalancesResponse?.data).toEqual({ 'USD/2': 100n });
  });
});
