import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../lib/platform/runtime.js';
import { ledgerClient } from '../support/ledger.js';
import { testEnvironment } from '../support/tables.js';

let runtime: ServiceRuntime;
const send = (source: string, destination: string, amount: bigint) => ({ source, destination, amount, asset: 'USD' });

beforeAll(async () => {
  ({ runtime } = await testEnvironment());
});

describe('serializeWrites (the local platform: one process serving every client)', () => {
  it('queues concurrent writes of a ledger: all commit in one attempt each, ids gapless, failures do not block the queue', async () => {
    const sleeps: number[] = [];
    const { call } = await ledgerClient(runtime, { serializeWrites: true, sleep: async (ms) => void sleeps.push(ms) });
    expect((await call('POST', '/v2/queued')).status).toBe(204);
    expect((await call('POST', '/v2/queued/transactions', { postings: [send('world', 'alice', 10n)] })).status).toBe(200);
    // 20 spends of 1 from a balance of 10, all at once, plus writes to another ledger in between.
    expect((await call('POST', '/v2/queued-other')).status).toBe(204);
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => call('POST', '/v2/queued/transactions', { postings: [send('alice', 'bob', 1n)] })),
      ...Array.from({ length: 5 }, () => call('POST', '/v2/queued-other/transactions', { postings: [send('world', 'x', 1n)] })),
    ]);
    const spends = results.slice(0, 20);
    expect(spends.filter((r) => r.status === 200)).toHaveLength(10);
    expect(spends.filter((r) => r.status === 400).every((r) => r.body.errorCode === 'INSUFFICIENT_FUND')).toBe(true);
    expect(results.slice(20).every((r) => r.status === 200)).toBe(true);
    // No write of this process raced another: nothing was retried.
    expect(sleeps).toEqual([]);
    const ids = spends.filter((r) => r.status === 200).map((r) => Number(r.body.data.id)).sort((a, b) => a - b);
    expect(ids).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const alice = await call('GET', '/v2/queued/accounts/alice?expand=volumes');
    expect(alice.body.data.volumes.USD).toEqual({ input: 10n, output: 10n, balance: 0n });
    // After the queue drained, the next write goes straight through.
    expect((await call('POST', '/v2/queued/transactions', { postings: [send('world', 'alice', 1n)] })).body.data.id).toBe(12n);
  });
});
