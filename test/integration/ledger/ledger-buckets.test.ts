import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { LEDGER_RECHECK_MS, LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const names = (res: { body: any }) => res.body.cursor.data.map((l: { name: string }) => l.name);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => Date.parse('2026-06-01T00:00:00Z') }));
  for (const [name, bucket] of [
    ['bk-a1', 'bk-a'],
    ['bk-a2', 'bk-a'],
    ['bk-b1', 'bk-b'],
  ]) {
    expect((await call('POST', `/v2/${name}`, { bucket })).status).toBe(204);
  }
  expect(
    (
      await call('POST', '/v2/bk-a1/transactions', {
        postings: [{ source: 'world', destination: 'x', amount: 5n, asset: 'USD' }],
      })
    ).status,
  ).toBe(200);
});

describe('bucket deletion and restore (the reference: soft, restorable)', () => {
  it("makes the bucket's ledgers not found and leaves them out of lists, until restored, with nothing lost", async () => {
    expect((await call('DELETE', '/v2/_/buckets/bk-a')).status).toBe(204);
    // The deleting container forgets its cache at once: every ledger read of the bucket is a 404.
    for (const path of [
      '/v2/bk-a1',
      '/v2/bk-a1/transactions',
      '/v2/bk-a2/accounts',
      '/v2/bk-a1/_info',
    ]) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
    }
    const write = await call('POST', '/v2/bk-a2/transactions', {
      postings: [{ source: 'world', destination: 'y', amount: 1n, asset: 'USD' }],
    });
    expect(write.status).toBe(404);
    expect(
      names(await call('GET', '/v2?pageSize=100')).filter((n: string) => n.startsWith('bk-')),
    ).toEqual(['bk-b1']);
    expect(names(await call('GET', '/v2?bucket=bk-a'))).toEqual([]);
    const all = await call('GET', '/v2?pageSize=100&includeDeleted=true');
    const deleted = all.body.cursor.data.filter((l: { bucket: string }) => l.bucket === 'bk-a');
    expect(deleted.map((l: { name: string; deletedAt: string }) => [l.name, l.deletedAt])).toEqual([
      ['bk-a1', '2026-06-01T00:00:00Z'],
      ['bk-a2', '2026-06-01T00:00:00Z'],
    ]);
    // Deleting again keeps the first date; the other bucket is untouched.
    expect((await call('DELETE', '/v2/_/buckets/bk-a')).status).toBe(204);
    expect((await call('GET', '/v2/bk-b1')).status).toBe(200);

    expect((await call('POST', '/v2/_/buckets/bk-a/restore')).status).toBe(204);
    const ledger = await call('GET', '/v2/bk-a1');
    expect(ledger.status).toBe(200);
    expect(ledger.body.data.deletedAt).toBeUndefined();
    const txs = await call('GET', '/v2/bk-a1/transactions');
    expect(txs.body.cursor.data.map((t: { id: bigint }) => t.id)).toEqual([1n]);
    expect(names(await call('GET', '/v2?bucket=bk-a'))).toEqual(['bk-a1', 'bk-a2']);
  });

  it('answers 404 for a bucket that holds no ledger, and for a malformed name', async () => {
    for (const [method, path] of [
      ['DELETE', '/v2/_/buckets/nobody'],
      ['POST', '/v2/_/buckets/nobody/restore'],
      ['DELETE', '/v2/_/buckets/a%20b'],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, path).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
    }
  });
});

describe('another container', () => {
  it('sees a bucket deletion within LEDGER_RECHECK_MS, when its cached ledger record is read again', async () => {
    expect((await call('POST', '/v2/bk-c1', { bucket: 'bk-c' })).status).toBe(204);
    let clock = 1_000_000;
    const registry = new LedgerRegistry(
      createDocumentClient(runtime.connection),
      new BucketTables(runtime.config.tables.ledger),
    );
    const other = new LedgerLookup(registry, () => clock);
    expect((await other.resolve('default', 'bk-c1')).bucket).toBe('bk-c');
    expect((await call('DELETE', '/v2/_/buckets/bk-c')).status).toBe(204);
    clock += LEDGER_RECHECK_MS - 1;
    expect((await other.resolve('default', 'bk-c1')).name).toBe('bk-c1');
    clock += 1;
    await expect(other.resolve('default', 'bk-c1')).rejects.toThrow('ledger "bk-c1" not found');
    expect((await call('POST', '/v2/_/buckets/bk-c/restore')).status).toBe(204);
    expect((await other.resolve('default', 'bk-c1')).name).toBe('bk-c1');
  });
});
