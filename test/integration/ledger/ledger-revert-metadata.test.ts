import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json/bigint-json.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let n = 0;
const fresh = async (body?: unknown) => {
  const name = `r${++n}`;
  expect((await call('POST', `/v2/${name}`, body)).status).toBe(204);
  return name;
};
const send = (source: string, destination: string, amount: bigint, asset = 'EUR/2') => ({
  source,
  destination,
  amount,
  asset,
});
const tx = (ledger: string, body: unknown, query = '') =>
  call('POST', `/v2/${ledger}/transactions${query}`, body);

/** The envelopes of the ledger's events in log order, read from its log items as the table's stream carries them. */
async function eventsOf(ledger: string) {
  return (await ledgerEventsOf(runtime, ledger)).map((e) => e.envelope as any);
}
async function logsOf(ledger: string) {
  const { Items = [] } = await runtime.doc.send(
    new QueryCommand({
      TableName: runtime.config.tables.ledger,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#LOG` },
    }),
  );
  return Items.map((i) => parseJson(String(i.body)) as any);
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('revert', () => {
  it('creates the reversed transaction, marks the original, restores balances', async () => {
    const ledger = await fresh();
    await tx(ledger, { postings: [send('world', 'a', 100n)] });
    await tx(ledger, {
      postings: [send('a', 'b', 30n), send('b', 'c', 10n)],
      metadata: { order: '7' },
    });
    const res = await call('POST', `/v2/${ledger}/transactions/2/revert`, {
      metadata: { why: 'refund' },
    });
    expect(res.status, res.text).toBe(201);
    const revert = res.body.data;
    expect(revert.id).toBe(3n);
    expect(revert.postings).toEqual([send('c', 'b', 10n), send('b', 'a', 30n)]);
    expect(revert.metadata).toEqual({ why: 'refund', 'com.formance.spec/state/reverts': '2' });
    expect(revert.postCommitVolumes.a['EUR/2'].balance).toBe(100n);
    expect(revert.postCommitVolumes.b['EUR/2'].balance).toBe(0n);
    expect(revert.postCommitVolumes.c['EUR/2'].balance).toBe(0n);

    const original = (await call('GET', `/v2/${ledger}/transactions/2`)).body.data;
    expect(original.reverted).toBe(true);
    expect(original.revertedAt).toBe(revert.insertedAt);
    expect(original.metadata).toEqual({ order: '7' });

    const again = await call('POST', `/v2/${ledger}/transactions/2/revert`);
    expect(again.status).toBe(400);
    expect(again.body.errorCode).toBe('ALREADY_REVERT');
    expect((await call('POST', `/v2/${ledger}/transactions/99/revert`)).status).toBe(404);

    const event = (await eventsOf(ledger)).find((e) => e.type === 'ledger.reverted_transaction');
    expect(event.payload.revertedTransaction.id).toBe(2n);
    expect(event.payload.revertedTransaction.reverted).toBe(true);
    expect(event.payload.revertTransaction.id).toBe(3n);
    // As the ledger always sent them: the revert exactly as answered, the original with its own volumes (the
    // revert's pre-commit volumes are the original's post-commit ones, as nothing came between).
    expect(event.payload.revertTransaction).toEqual(revert);
    expect(event.payload.revertedTransaction.postCommitVolumes).toEqual(revert.preCommitVolumes);
    expect(event.payload.revertedTransaction.preCommitVolumes).toEqual({
      a: { 'EUR/2': { input: 100n, output: 0n, balance: 100n } },
      b: { 'EUR/2': { input: 0n, output: 0n, balance: 0n } },
      c: { 'EUR/2': { input: 0n, output: 0n, balance: 0n } },
    });
    expect((await logsOf(ledger)).map((l) => l.type)).toEqual([
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
      'REVERTED_TRANSACTION',
    ]);
  });

  it('checks balances like a create unless forced, and can keep the original effective date', async () => {
    const ledger = await fresh();
    await tx(ledger, { postings: [send('world', 'a', 10n)], timestamp: '2021-05-01T00:00:00Z' });
    await tx(ledger, { postings: [send('a', 'b', 10n)] });
    // Reverting the funding would take a (now empty) below zero.
    const refused = await call('POST', `/v2/${ledger}/transactions/1/revert`);
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data.reverted).toBe(false);
    const dry = await call('POST', `/v2/${ledger}/transactions/1/revert?force=true&dryRun=true`);
    expect(dry.status).toBe(201);
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data.reverted).toBe(false);
    const forced = await call(
      'POST',
      `/v2/${ledger}/transactions/1/revert?force=true&atEffectiveDate=true`,
    );
    expect(forced.status).toBe(201);
    expect(forced.body.data.timestamp).toBe('2021-05-01T00:00:00Z');
    expect(forced.body.data.postCommitVolumes.a['EUR/2'].balance).toBe(-10n);
  });
});

describe('transaction metadata', () => {
  it('merges and deletes keys, logs each change, emits events, and keeps revisions', async () => {
    const ledger = await fresh();
    await tx(ledger, { postings: [send('world', 'a', 1n)], metadata: { a: '1' } });
    expect((await call('POST', `/v2/${ledger}/transactions/1/metadata`, { b: '2' })).status).toBe(
      204,
    );
    expect((await call('DELETE', `/v2/${ledger}/transactions/1/metadata/a`)).status).toBe(204);
    const read = (await call('GET', `/v2/${ledger}/transactions/1`)).body.data;
    expect(read.metadata).toEqual({ b: '2' });
    // As instants: the wire form drops trailing zeros of the fraction, so the strings do not sort as time does.
    expect(Date.parse(read.updatedAt) >= Date.parse(read.insertedAt)).toBe(true);

    const missingKey = await call('DELETE', `/v2/${ledger}/transactions/1/metadata/a`);
    expect(missingKey.status).toBe(404);
    expect(missingKey.body.errorCode).toBe('NOT_FOUND');
    expect((await call('POST', `/v2/${ledger}/transactions/5/metadata`, { b: '2' })).status).toBe(
      404,
    );
    expect((await call('POST', `/v2/${ledger}/transactions/1/metadata`, { b: 2 })).status).toBe(
      400,
    );
    const array = await call('POST', `/v2/${ledger}/transactions/1/metadata`, ['a']);
    expect(array.status).toBe(400);
    expect(array.body.errorMessage).toBe('body: must be a JSON object');

    const logs = await logsOf(ledger);
    expect(logs.map((l) => l.type)).toEqual(['NEW_TRANSACTION', 'SET_METADATA', 'DELETE_METADATA']);
    expect(logs[1].data).toEqual({ targetType: 'TRANSACTION', targetId: 1n, metadata: { b: '2' } });
    const events = await eventsOf(ledger);
    expect(events.map((e) => e.type)).toEqual([
      'ledger.committed_transactions',
      'ledger.saved_metadata',
      'ledger.deleted_metadata',
    ]);
    expect(events[1].payload).toEqual({
      ledger,
      targetType: 'TRANSACTION',
      targetId: '1',
      metadata: { b: '2' },
    });
    expect(events[2].payload).toEqual({
      ledger,
      targetType: 'TRANSACTION',
      targetId: '1',
      key: 'a',
    });

    const revisions = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#TXMH#1` },
      }),
    );
    expect(revisions.Items!.map((r) => r.metadata)).toEqual([{ a: '1', b: '2' }, { b: '2' }]);
  });

  it('keeps no revisions with TRANSACTION_METADATA_HISTORY=DISABLED', async () => {
    const ledger = await fresh({ features: { TRANSACTION_METADATA_HISTORY: 'DISABLED' } });
    await tx(ledger, { postings: [send('world', 'a', 1n)] });
    expect((await call('POST', `/v2/${ledger}/transactions/1/metadata`, { b: '2' })).status).toBe(
      204,
    );
    const revisions = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#TXMH#1` },
      }),
    );
    expect(revisions.Items).toEqual([]);
  });
});

describe('account metadata', () => {
  it('creates the account on first metadata, merges, deletes, counts it once', async () => {
    const ledger = await fresh();
    expect(
      (await call('POST', `/v2/${ledger}/accounts/users:42/metadata`, { tier: 'gold' })).status,
    ).toBe(204);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.accounts).toBe(1n);
    await tx(ledger, {
      postings: [send('world', 'users:42', 5n)],
      accountMetadata: { 'users:42': { kyc: 'ok' } },
    });
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.accounts).toBe(2n);
    expect((await call('DELETE', `/v2/${ledger}/accounts/users:42/metadata/tier`)).status).toBe(
      204,
    );
    expect((await call('DELETE', `/v2/${ledger}/accounts/users:42/metadata/tier`)).status).toBe(
      404,
    );
    expect((await call('DELETE', `/v2/${ledger}/accounts/nobody/metadata/tier`)).status).toBe(404);
    expect(
      (await call('POST', `/v2/${ledger}/accounts/bad%20address/metadata`, { a: 'b' })).status,
    ).toBe(400);
    // A percent sign survives the path's decoding: refused as an address, not a server error.
    expect((await call('POST', `/v2/${ledger}/accounts/a%25zz/metadata`, { a: 'b' })).status).toBe(
      400,
    );
    expect((await call('DELETE', `/v2/${ledger}/accounts/a%25zz/metadata/k`)).status).toBe(400);
    const account = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#A#users:42` },
      }),
    );
    const item = account.Items!.find((i) => i.sk === 'A')!;
    expect(item.metadata).toEqual({ kyc: 'ok' });
    expect(item.assets).toEqual(['EUR/2']);
    // A revision per change, the transaction's accountMetadata included.
    expect(
      account.Items!.filter((i) => String(i.sk).startsWith('MH#')).map((i) => i.metadata),
    ).toEqual([{ tier: 'gold' }, { tier: 'gold', kyc: 'ok' }, { kyc: 'ok' }]);
    const events = await eventsOf(ledger);
    expect(events[0].payload).toEqual({
      ledger,
      targetType: 'ACCOUNT',
      targetId: 'users:42',
      metadata: { tier: 'gold' },
    });
  });
});

describe('count', () => {
  it('answers HEAD with the number of transactions in Count', async () => {
    const ledger = await fresh();
    for (let i = 0; i < 3; i++) await tx(ledger, { postings: [send('world', 'a', 1n)] });
    const res = await call('HEAD', `/v2/${ledger}/transactions`);
    expect(res.status).toBe(204);
    expect(res.headers.get('count')).toBe('3');
    expect(res.text).toBe('');
  });
});
