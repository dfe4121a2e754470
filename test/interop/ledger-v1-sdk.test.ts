/**
 * The official SDK's v1 ledger calls (`sdk.ledger.v1`: every operation), unmodified, against the local
 * platform's services (in-process) over real HTTP.
 *
 * Known SDK limitation (7.0.1): its `Expr` model is `z.object({})`, which strips every key, so `updateMapping`
 * sends `"expr": {}` whatever the caller wrote (refused by us: an expression needs one operator) and
 * `getMapping` hands back `expr: {}`. Contracts with real expressions must be PUT over plain HTTP; the SDK can
 * still read the mapping's accounts and clear it. Its v1 request models also send amounts as JS numbers (exact only
 * up to 2^53), so the amounts here stay below that.
 */
import type { SDK } from '@formance/formance-sdk';
import { ErrorsErrorResponse } from '@formance/formance-sdk/sdk/models/ledger/errorserrorresponse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type InProcessPlatform,
  startInProcessSdkPlatform,
} from '../support/in-process-platform.js';
import { testClientToken } from '../support/platform.js';

let platform: InProcessPlatform;
let sdk: SDK;
const ledger = 'sdk-v1';

beforeAll(async () => {
  ({ platform, sdk } = await startInProcessSdkPlatform());
  await sdk.ledger.v2.createLedger({ ledger, v2CreateLedgerRequest: {} });
});

afterAll(async () => {
  await platform?.stop();
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('@formance/formance-sdk 7 ledger v1 calls', () => {
  it('creates transactions and lists them in the v1 shape, with after and filters', async () => {
    const created = await sdk.ledger.v1.createTransaction({
      ledger,
      postTransaction: {
        postings: [
          { source: 'world', destination: 'users:1', amount: 12345678901234n, asset: 'USD/2' },
        ],
        reference: 'sdk-1',
        metadata: { via: 'v1' },
      },
    });
    expect(created.statusCode).toBe(200);
    const [tx] = created.transactionsResponse!.data;
    expect(tx!.txid).toBe(1n);
    expect(tx!.postCommitVolumes?.['users:1']?.['USD/2']).toEqual({
      input: 12345678901234n,
      output: 0n,
      balance: 12345678901234n,
    });
    expect(tx!.preCommitVolumes?.['users:1']?.['USD/2']).toEqual({
      input: 0n,
      output: 0n,
      balance: 0n,
    });
    expect(tx!.timestamp).toBeInstanceOf(Date);

    await sdk.ledger.v1.createTransaction({
      ledger,
      postTransaction: {
        postings: [{ source: 'users:1', destination: 'users:2', amount: 5n, asset: 'USD/2' }],
      },
    });
    const preview = await sdk.ledger.v1.createTransaction({
      ledger,
      preview: true,
      postTransaction: {
        postings: [{ source: 'world', destination: 'users:3', amount: 1n, asset: 'USD/2' }],
      },
    });
    expect(preview.transactionsResponse!.data[0]!.txid).toBe(3n);

    const list = await sdk.ledger.v1.listTransactions({ ledger, pageSize: 10 });
    expect(list.transactionsCursorResponse!.cursor.data.map((t) => t.txid)).toEqual([2n, 1n]);
    expect(list.transactionsCursorResponse!.cursor.data[1]!.reference).toBe('sdk-1');
    expect(
      (
        await sdk.ledger.v1.listTransactions({ ledger, after: '2' })
      ).transactionsCursorResponse!.cursor.data.map((t) => t.txid),
    ).toEqual([1n]);
    expect(
      (
        await sdk.ledger.v1.listTransactions({ ledger, destination: 'users:2' })
      ).transactionsCursorResponse!.cursor.data.map((t) => t.txid),
    ).toEqual([2n]);
    expect(
      (
        await sdk.ledger.v1.listTransactions({
          ledger,
          startTime: new Date(Date.now() + 3_600_000),
        })
      ).transactionsCursorResponse!.cursor.data,
    ).toEqual([]);
    const paged = await sdk.ledger.v1.listTransactions({ ledger, pageSize: 1 });
    const next = await sdk.ledger.v1.listTransactions({
      ledger,
      cursor: paged.transactionsCursorResponse!.cursor.next!,
    });
    expect(next.transactionsCursorResponse!.cursor.data.map((t) => t.txid)).toEqual([1n]);
  });

  it('reads and clears the mapping, and raises typed errors', async () => {
    expect((await sdk.ledger.v1.getMapping({ ledger })).mappingResponse?.data).toBeNull();
    // Contracts with expressions go over plain HTTP (see the limitation above).
    const put = await fetch(`${platform.baseUrl}/api/ledger/${ledger}/mapping`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${await testClientToken(platform)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -1000] } }],
      }),
    });
    expect(put.status).toBe(200);
    const got = await sdk.ledger.v1.getMapping({ ledger });
    expect(got.mappingResponse?.data).toEqual({ contracts: [{ account: 'users:*', expr: {} }] });

    const spend = await sdk.ledger.v1.createTransaction({
      ledger,
      postTransaction: {
        postings: [{ source: 'users:9', destination: 'shop', amount: 1000n, asset: 'USD/2' }],
      },
    });
    expect(
      spend.transactionsResponse!.data[0]!.postCommitVolumes?.['users:9']?.['USD/2']?.balance,
    ).toBe(-1000n);
    const refused = await rejection(
      sdk.ledger.v1.createTransaction({
        ledger,
        postTransaction: {
          postings: [{ source: 'users:9', destination: 'shop', amount: 1n, asset: 'USD/2' }],
        },
      }),
    );
    expect(refused).toBeInstanceOf(ErrorsErrorResponse);
    expect((refused as ErrorsErrorResponse).errorCode).toBe('INSUFFICIENT_FUND');

    const stripped = await rejection(
      sdk.ledger.v1.updateMapping({
        ledger,
        mapping: { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', 0] } }] },
      }),
    );
    expect(stripped).toBeInstanceOf(ErrorsErrorResponse);
    expect((stripped as ErrorsErrorResponse).errorCode).toBe('VALIDATION');
    expect((stripped as ErrorsErrorResponse).errorMessage).toBe(
      'body.contracts[0].expr: must have exactly one operator, found 0',
    );

    const cleared = await sdk.ledger.v1.updateMapping({ ledger, mapping: { contracts: [] } });
    expect(cleared.mappingResponse?.data).toEqual({ contracts: [] });
    expect((await sdk.ledger.v1.getMapping({ ledger })).mappingResponse?.data).toEqual({
      contracts: [],
    });
  });

  it('runs Numscript: runScript answers the transaction, or the script error in its ScriptResponse', async () => {
    const scriptLedger = 'sdk-v1-script';
    await sdk.ledger.v2.createLedger({ ledger: scriptLedger, v2CreateLedgerRequest: {} });
    const plain =
      'vars {\n  monetary $amount\n}\nsend $amount (\n  source = @world\n  destination = {\n    50% to @a\n    remaining to @b\n  }\n)';
    const run = await sdk.ledger.v1.runScript({
      ledger: scriptLedger,
      script: {
        plain,
        vars: { amount: { asset: 'USD/2', amount: 101 } },
        reference: 'rs-1',
        metadata: { via: 'sdk' },
      },
    });
    expect(run.scriptResponse?.errorCode).toBeUndefined();
    expect(run.scriptResponse?.transaction).toMatchObject({
      txid: 1n,
      reference: 'rs-1',
      metadata: { via: 'sdk' },
    });
    expect(run.scriptResponse?.transaction?.postings.map((p) => [p.destination, p.amount])).toEqual(
      [
        ['a', 51n],
        ['b', 50n],
      ],
    );
    const short = await sdk.ledger.v1.runScript({
      ledger: scriptLedger,
      script: { plain: 'send [USD/2 1000] (\n  source = @a\n  destination = @b\n)' },
    });
    expect(short.scriptResponse).toMatchObject({ errorCode: 'INSUFFICIENT_FUND' });
    const broken = await sdk.ledger.v1.runScript({
      ledger: scriptLedger,
      script: { plain: 'send [USD/2' },
    });
    expect(broken.scriptResponse?.errorCode).toBe('COMPILATION_FAILED');
  });

  it('serves every other v1 operation in the shapes the SDK parses', async () => {
    const l = 'sdk-v1-ops';
    await sdk.ledger.v2.createLedger({ ledger: l, v2CreateLedgerRequest: {} });
    const v1 = sdk.ledger.v1;
    const batch = await v1.createTransactions({
      ledger: l,
      transactions: {
        transactions: [
          {
            postings: [{ source: 'world', destination: 'users:1', amount: 100n, asset: 'USD/2' }],
            reference: 'b1',
          },
          {
            postings: [{ source: 'users:1', destination: 'users:2', amount: 30n, asset: 'USD/2' }],
          },
        ],
      },
    });
    expect(batch.transactionsResponse!.data.map((t) => [t.txid, t.reference])).toEqual([
      [1n, 'b1'],
      [2n, undefined],
    ]);

    const got = await v1.getTransaction({ ledger: l, txid: 2n });
    expect(got.transactionResponse!.data.postCommitVolumes?.['users:2']?.['USD/2']).toEqual({
      input: 30n,
      output: 0n,
      balance: 30n,
    });
    expect(
      (await v1.addMetadataOnTransaction({ ledger: l, txid: 2n, requestBody: { a: 'b' } }))
        .statusCode,
    ).toBe(204);
    expect(
      (await v1.getTransaction({ ledger: l, txid: 2n })).transactionResponse!.data.metadata,
    ).toEqual({ a: 'b' });
    const reverted = await v1.revertTransaction({ ledger: l, txid: 2n });
    expect(reverted.statusCode).toBe(201);
    expect(reverted.transactionResponse!.data).toMatchObject({
      txid: 3n,
      postings: [{ source: 'users:2', destination: 'users:1', amount: 30n, asset: 'USD/2' }],
    });
    const missing = await rejection(v1.getTransaction({ ledger: l, txid: 99n }));
    expect(missing).toBeInstanceOf(ErrorsErrorResponse);
    expect((missing as ErrorsErrorResponse).errorCode).toBe('NOT_FOUND');

    expect(
      (
        await v1.addMetadataToAccount({
          ledger: l,
          address: 'users:1',
          requestBody: { tier: 'gold' },
        })
      ).statusCode,
    ).toBe(204);
    const account = await v1.getAccountLedger({ ledger: l, address: 'users:1' });
    expect(account.accountResponse!.data).toEqual({
      address: 'users:1',
      metadata: { tier: 'gold' },
      volumes: { 'USD/2': { input: 130n, output: 30n, balance: 100n } },
      balances: { 'USD/2': 100n },
    });
    const listed = await v1.listAccountsLedger({
      ledger: l,
      address: 'users:.*',
      metadata: { tier: 'gold' },
      balance: 50,
    });
    expect(listed.accountsCursorResponse!.cursor.data).toEqual([
      { address: 'users:1', metadata: { tier: 'gold' } },
    ]);
    expect((await v1.countAccounts({ ledger: l })).headers.count).toEqual(['3']);
    expect((await v1.countAccounts({ ledger: l, address: 'users:' })).headers.count).toEqual(['2']);
    expect((await v1.countTransactions({ ledger: l, account: 'users:2' })).headers.count).toEqual([
      '2',
    ]);

    const balances = await v1.getBalances({ ledger: l, address: 'users:' });
    expect(balances.balancesCursorResponse!.cursor.data).toEqual([
      { 'users:1': { 'USD/2': 100 } },
      { 'users:2': { 'USD/2': 0 } },
    ]);
    expect((await v1.getBalancesAggregated({ ledger: l })).aggregateBalancesResponse!.data).toEqual(
      { 'USD/2': 0 },
    );
    expect(
      (await v1.getBalancesAggregated({ ledger: l, address: 'users:1' })).aggregateBalancesResponse!
        .data,
    ).toEqual({ 'USD/2': 100 });

    const logs = await v1.listLogs({ ledger: l, pageSize: 10 });
    expect(logs.logsCursorResponse!.cursor.data.map((e) => [e.id, e.type])).toEqual([
      [5, 'SET_METADATA'],
      [4, 'NEW_TRANSACTION'],
      [3, 'SET_METADATA'],
      [2, 'NEW_TRANSACTION'],
      [1, 'NEW_TRANSACTION'],
    ]);
    expect(
      (await v1.listLogs({ ledger: l, after: '3' })).logsCursorResponse!.cursor.data.map(
        (e) => e.id,
      ),
    ).toEqual([2, 1]);
    expect((await v1.readStats({ ledger: l })).statsResponse!.data).toEqual({
      accounts: 3,
      transactions: 3,
    });
    expect((await v1.getLedgerInfo({ ledger: l })).ledgerInfoResponse!.data).toEqual({
      name: l,
      storage: { migrations: [] },
    });
    const info = await v1.getInfo();
    expect(info.configInfoResponse!.data.config.storage.driver).toBe('dynamodb');
    expect(info.configInfoResponse!.data.config.storage.ledgers).toEqual(
      expect.arrayContaining([ledger, l]),
    );
  });
});
