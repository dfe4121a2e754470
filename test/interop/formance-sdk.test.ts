/**
 * The official TypeScript SDK, unmodified, against the local platform over real HTTP: its OAuth flow, its
 * request shapes and its strict (zod) response parsing must all accept what we serve.
 */
import type { SDK } from '@formance/formance-sdk';
import { ErrorsV2ErrorResponse } from '@formance/formance-sdk/sdk/models/ledger/errorsv2errorresponse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { PLATFORM_VERSION } from '../../lib/openapi/version.js';
import { personId } from '../../lib/platform/domain/directory.js';
import { platformLogin } from '../support/identity.js';
import { TestDirectory } from '../support/platform-directory.js';
import { startSdkPlatform } from '../support/sdk.js';

let platform: RunningPlatform;
let sdk: SDK;
const ledger = 'sdk-main';

beforeAll(async () => {
  ({ platform, sdk } = await startSdkPlatform());
});

afterAll(async () => {
  await platform?.stop();
});

describe('@formance/formance-sdk 7 against the ledger', () => {
  it('creates, reads and lists ledgers', async () => {
    const created = await sdk.ledger.v2.createLedger({
      ledger,
      v2CreateLedgerRequest: { metadata: { owner: 'sdk' } },
    });
    expect(created.statusCode).toBe(204);
    const got = await sdk.ledger.v2.getLedger({ ledger });
    expect(got.v2GetLedgerResponse?.data).toMatchObject({
      name: ledger,
      bucket: '_default',
      metadata: { owner: 'sdk' },
    });
    expect(got.v2GetLedgerResponse?.data.features?.HASH_LOGS).toBe('SYNC');
    const listed = await sdk.ledger.v2.listLedgers({ pageSize: 10 });
    expect(listed.v2LedgerListResponse?.cursor.data.map((l) => l.name)).toContain(ledger);
    // The SDK sends `query` as JSON in the query string.
    const filtered = await sdk.ledger.v2.listLedgers({
      pageSize: 10,
      query: { $and: [{ $match: { 'metadata[owner]': 'sdk' } }, { $like: { name: 'sdk-%' } }] },
    });
    expect(filtered.v2LedgerListResponse?.cursor.data.map((l) => l.name)).toEqual([ledger]);
  });

  it('creates transactions with bigint amounts and an Idempotency-Key, and reads them back', async () => {
    const funded = await sdk.ledger.v2.createTransaction({
      ledger,
      idempotencyKey: 'sdk-fund-1',
      v2PostTransaction: {
        postings: [
          { source: 'world', destination: 'users:1', amount: 12345678901234n, asset: 'USD/2' },
        ],
        metadata: { via: 'sdk' },
      },
    });
    const tx = funded.v2CreateTransactionResponse!.data;
    expect(tx.id).toBe(1n);
    expect(tx.postings[0]!.amount).toBe(12345678901234n);
    expect(tx.postCommitVolumes?.['users:1']?.['USD/2']?.balance).toBe(12345678901234n);

    const replay = await sdk.ledger.v2.createTransaction({
      ledger,
      idempotencyKey: 'sdk-fund-1',
      v2PostTransaction: {
        postings: [
          { source: 'world', destination: 'users:1', amount: 12345678901234n, asset: 'USD/2' },
        ],
        metadata: { via: 'sdk' },
      },
    });
    expect(replay.rawResponse.headers.get('idempotency-hit')).toBe('true');
    expect(replay.v2CreateTransactionResponse!.data.id).toBe(1n);

    await sdk.ledger.v2.createTransaction({
      ledger,
      v2PostTransaction: {
        postings: [{ source: 'users:1', destination: 'users:2', amount: 100n, asset: 'USD/2' }],
        metadata: {},
      },
    });
    const list = await sdk.ledger.v2.listTransactions({ ledger, pageSize: 10 });
    expect(list.v2TransactionsCursorResponse?.cursor.data.map((t) => t.id)).toEqual([2n, 1n]);
    const got = await sdk.ledger.v2.getTransaction({ ledger, id: 1n, expand: 'volumes' });
    expect(got.v2GetTransactionResponse?.data.metadata).toEqual({ via: 'sdk' });
    expect(got.v2GetTransactionResponse?.data.reverted).toBe(false);
  });

  it('reads an account with volumes, aggregated balances and stats', async () => {
    const account = await sdk.ledger.v2.getAccount({
      ledger,
      address: 'users:1',
      expand: 'volumes',
    });
    expect(account.v2AccountResponse?.data.address).toBe('users:1');
    expect(account.v2AccountResponse?.data.volumes?.['USD/2']).toEqual({
      input: 12345678901234n,
      output: 100n,
      balance: 12345678901134n,
    });
    const balances = await sdk.ledger.v2.getBalancesAggregated({ ledger });
    expect(balances.v2AggregateBalancesResponse?.data).toEqual({ 'USD/2': 0n });
    const stats = await sdk.ledger.v2.readStats({ ledger });
    // The SDK types `accounts` as a number and `transactions` as a bigint.
    expect(stats.v2StatsResponse?.data).toEqual({ accounts: 3, transactions: 2n });
  });

  it('adds metadata, reverts, and lists the logs', async () => {
    const meta = await sdk.ledger.v2.addMetadataOnTransaction({
      ledger,
      id: 2n,
      requestBody: { checked: 'yes' },
    });
    expect(meta.statusCode).toBe(204);
    const reverted = await sdk.ledger.v2.revertTransaction({ ledger, id: 2n });
    expect(reverted.statusCode).toBe(201);
    expect(reverted.v2CreateTransactionResponse?.data.metadata).toEqual({
      'com.formance.spec/state/reverts': '2',
    });
    const logs = await sdk.ledger.v2.listLogs({ ledger, pageSize: 10 });
    const entries = logs.v2LogsCursorResponse!.cursor.data;
    expect(entries.map((l) => l.type)).toEqual([
      'REVERTED_TRANSACTION',
      'SET_METADATA',
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
    ]);
    expect(entries.every((l) => typeof l.hash === 'string' && l.hash.length > 0)).toBe(true);
  });

  it('reads every bulk result: successes, a replay, errors and elements not applied (400 is a bulk response too)', async () => {
    const bulkLedger = 'sdk-bulk';
    await sdk.ledger.v2.createLedger({ ledger: bulkLedger, v2CreateLedgerRequest: {} });
    const element = {
      action: 'CREATE_TRANSACTION' as const,
      ik: 'sdk-bulk-1',
      data: {
        postings: [{ source: 'world', destination: 'b:1', amount: 5n, asset: 'USD' }],
        metadata: {},
      },
    };
    const first = await sdk.ledger.v2.createBulk({
      ledger: bulkLedger,
      requestBody: [
        element,
        {
          action: 'ADD_METADATA',
          data: { targetType: 'ACCOUNT', targetId: 'b:1', metadata: { k: 'v' } },
        },
      ],
    });
    expect(first.v2BulkResponse?.data?.map((r) => [r.responseType, r.logID])).toEqual([
      ['CREATE_TRANSACTION', 1],
      ['ADD_METADATA', 2],
    ]);
    const mixed = await sdk.ledger.v2.createBulk({
      ledger: bulkLedger,
      requestBody: [
        element,
        {
          action: 'CREATE_TRANSACTION',
          data: {
            postings: [{ source: 'b:1', destination: 'b:2', amount: 999n, asset: 'USD' }],
            metadata: {},
          },
        },
        { action: 'DELETE_METADATA', data: { targetType: 'ACCOUNT', targetId: 'b:1', key: 'k' } },
      ],
    });
    expect(
      mixed.v2BulkResponse?.data?.map((r) => [
        r.responseType,
        r.logID,
        'errorCode' in r ? r.errorCode : undefined,
      ]),
    ).toEqual([
      ['CREATE_TRANSACTION', 1, undefined],
      ['ERROR', 0, 'INSUFFICIENT_FUND'],
      ['ERROR', 0, 'VALIDATION'],
    ]);
  });

  it('creates a transaction from a Numscript script, and raises COMPILATION_FAILED for a broken one', async () => {
    const plain =
      'vars {\n  account $user\n}\nsend [EUR/2 250] (\n  source = @world\n  destination = $user\n)\nset_tx_meta("kind", "topup")';
    const created = await sdk.ledger.v2.createTransaction({
      ledger,
      v2PostTransaction: { script: { plain, vars: { user: 'users:42' } }, metadata: {} },
    });
    expect(created.v2CreateTransactionResponse?.data).toMatchObject({
      postings: [{ source: 'world', destination: 'users:42', amount: 250n, asset: 'EUR/2' }],
      metadata: { kind: 'topup' },
    });
    const err = await sdk.ledger.v2
      .createTransaction({
        ledger,
        v2PostTransaction: { script: { plain: 'send [EUR/2 1] (' }, metadata: {} },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ErrorsV2ErrorResponse);
    expect((err as ErrorsV2ErrorResponse).errorCode).toBe('COMPILATION_FAILED');
  });

  it('reads the auth and payments server info', async () => {
    expect((await sdk.auth.v1.getServerInfoAuth()).serverInfo).toEqual({
      version: PLATFORM_VERSION,
    });
    expect((await sdk.payments.v1.getServerInfoPayments()).serverInfo).toEqual({
      version: PLATFORM_VERSION,
    });
    const unauthenticated = await fetch(`${platform.baseUrl}/api/webhooks/_info`);
    expect(unauthenticated.status).toBe(401);
  });

  it('lists and reads the persons of the default environment (listUsers, readUser)', async () => {
    // The default organization with its admin, as a deployment's first start writes it; the admin logs in.
    await TestDirectory.of(platform).defaults(['dev@example.com']);
    await platformLogin(platform, 'dev@example.com');
    const listed = await sdk.auth.v1.listUsers();
    const dev = listed.listUsersResponse?.data?.find((u) => u.email === 'dev@example.com');
    expect(dev).toEqual({
      id: personId('dev@example.com'),
      email: 'dev@example.com',
      subject: expect.stringMatching(/^local-[0-9a-f]{24}$/),
    });
    const read = await sdk.auth.v1.readUser({ userId: dev!.id! });
    expect(read.readUserResponse?.data).toEqual(dev);
    await expect(sdk.auth.v1.readUser({ userId: personId('nobody@example.com') })).rejects.toThrow(
      /404/,
    );
  });

  it('lists every service with its version and health at /versions, without a token', async () => {
    const versions = await sdk.getVersions();
    expect(versions.getVersionsResponse).toEqual({
      env: 'local',
      region: 'local',
      versions: ['auth', 'ledger', 'payments', 'webhooks'].map((name) => ({
        name,
        version: PLATFORM_VERSION,
        health: true,
      })),
    });
    const raw = await fetch(`${platform.baseUrl}/versions`);
    expect(raw.status).toBe(200);
    expect((await fetch(`${platform.baseUrl}/versions`, { method: 'POST' })).status).toBe(404);
  });

  it('raises the typed INSUFFICIENT_FUND error', async () => {
    const err = await sdk.ledger.v2
      .createTransaction({
        ledger,
        v2PostTransaction: {
          postings: [
            { source: 'users:2', destination: 'users:3', amount: 1_000_000n, asset: 'USD/2' },
          ],
          metadata: {},
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ErrorsV2ErrorResponse);
    expect((err as ErrorsV2ErrorResponse).errorCode).toBe('INSUFFICIENT_FUND');
    expect((err as ErrorsV2ErrorResponse).statusCode).toBe(400);
  });
});
