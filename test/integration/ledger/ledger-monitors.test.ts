/**
 * Balance monitors (docs/api.md §3.6) through HTTP on DynamoDB Local, with the embedded group commit: created,
 * listed, read and deleted; kept apart from the limits and the v1 mapping in the item they share; bad input
 * refused in the contract's shape; an export replayed into a ledger with other monitors keeps every hash (crossings
 * are the importing ledger's own, outside the hashed entries). The events they trigger: lib/ledger/store/monitor-events.test.ts (the engine)
 * and test/local/webhook-delivery.test.ts (a receiver).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let app: Awaited<ReturnType<typeof ledgerClient>>['app'];
let token: string;
let runtime: Awaited<ReturnType<typeof testTables>>['runtime'];
let counter = 0;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call, app, token } = await ledgerClient(runtime, { embedded: {} }));
});

async function fresh(): Promise<string> {
  const name = `monitors${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  return name;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('balance monitors', () => {
  it('are created, listed oldest first, read and deleted', async () => {
    const name = await fresh();
    const low = await call('POST', `/v2/${name}/monitors`, {
      account: 'users:*',
      asset: 'USD/2',
      condition: { type: 'below', amount: '-100' },
      metadata: { team: 'risk' },
    });
    expect(low.status, low.text).toBe(201);
    expect(low.body.data).toEqual({
      id: expect.stringMatching(UUID),
      account: 'users:*',
      asset: 'USD/2',
      condition: { type: 'below', amount: -100n },
      metadata: { team: 'risk' },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const any = await call('POST', `/v2/${name}/monitors`, {
      account: 'merchants:1',
      asset: 'EUR',
      condition: { type: 'changes' },
    });
    expect(any.status).toBe(201);
    const list = await call('GET', `/v2/${name}/monitors`);
    expect(list.body).toEqual({
      cursor: { pageSize: 100n, hasMore: false, data: [low.body.data, any.body.data] },
    });
    expect((await call('GET', `/v2/${name}/monitors/${any.body.data.id}`)).body).toEqual({
      data: any.body.data,
    });
    expect((await call('DELETE', `/v2/${name}/monitors/${low.body.data.id}`)).status).toBe(204);
    expect((await call('GET', `/v2/${name}/monitors`)).body.cursor.data).toEqual([any.body.data]);
    const gone = await call('GET', `/v2/${name}/monitors/${low.body.data.id}`);
    expect([gone.status, gone.body.errorCode]).toEqual([404, 'NOT_FOUND']);
    const again = await call('DELETE', `/v2/${name}/monitors/${low.body.data.id}`);
    expect([again.status, again.body.errorCode]).toEqual([404, 'NOT_FOUND']);
  });

  it('share their item with the limits and the contracts: replacing either keeps the others', async () => {
    const name = await fresh();
    const created = await call('POST', `/v2/${name}/monitors`, {
      account: 'users:1',
      asset: 'USD',
      condition: { type: 'negative' },
    });
    const limits = await call('PUT', `/v2/${name}/limits`, {
      rules: [{ account: 'users:*', min: 0 }],
    });
    expect(limits.status).toBe(200);
    const mapping = await call('PUT', `/${name}/mapping`, {
      contracts: [{ account: 'shop', expr: { $gte: ['$balance', 0] } }],
    });
    expect(mapping.status, mapping.text).toBe(200);
    expect((await call('GET', `/v2/${name}/monitors`)).body.cursor.data).toEqual([
      created.body.data,
    ]);
    expect((await call('GET', `/v2/${name}/limits`)).body.data.rules).toEqual([
      { account: 'users:*', min: 0n },
    ]);
    expect((await call('DELETE', `/v2/${name}/monitors/${created.body.data.id}`)).status).toBe(204);
    expect((await call('GET', `/v2/${name}/limits`)).body.data.rules).toHaveLength(1);
    expect((await call('GET', `/${name}/mapping`)).body.data.contracts).toHaveLength(1);
  });

  it('refuse bad input with VALIDATION and save nothing', async () => {
    const name = await fresh();
    const bad = [
      [{ account: 'users:*', asset: 'USD', condition: { type: 'below' } }, 'condition'],
      [{ account: 'users:*', asset: 'USD', condition: { type: 'soon' } }, 'condition'],
      [{ account: 'users:*', asset: 'usd', condition: { type: 'changes' } }, 'asset'],
      [{ account: 'users 1', asset: 'USD', condition: { type: 'changes' } }, 'account'],
      [{ account: 'a', asset: 'USD', condition: { type: 'negative', amount: 1 } }, 'condition'],
      [{ account: 'a', asset: 'USD', condition: { type: 'changes' }, x: 1 }, 'x'],
    ] as const;
    for (const [body, field] of bad) {
      const res = await call('POST', `/v2/${name}/monitors`, body);
      expect([res.status, res.body.errorCode], JSON.stringify(body)).toEqual([400, 'VALIDATION']);
      expect(res.body.errorMessage).toContain(field);
    }
    expect((await call('GET', `/v2/${name}/monitors`)).body.cursor.data).toEqual([]);
    const unknown = await call('GET', `/v2/nosuchledger${counter}/monitors`);
    expect([unknown.status, unknown.body.errorCode]).toEqual([404, 'LEDGER_NOT_FOUND']);
  });

  it("an export replayed into a ledger with other monitors: the same log and hashes, that ledger's own crossings", async () => {
    const source = await fresh();
    const target = await fresh();
    const watch = async (ledger: string, condition: unknown) =>
      (
        await call('POST', `/v2/${ledger}/monitors`, {
          account: 'users:*',
          asset: 'USD',
          condition,
        })
      ).body.data.id as string;
    const changes = await watch(source, { type: 'changes' });
    const above = await watch(target, { type: 'above', amount: 100 });
    for (const amount of [60n, 50n, 40n]) {
      const res = await call('POST', `/v2/${source}/transactions`, {
        postings: [{ source: 'world', destination: 'users:1', amount, asset: 'USD' }],
      });
      expect(res.status).toBe(200);
    }
    const exported = await app.request(`/api/ledger/v2/${source}/logs/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.status).toBe(200);
    const imported = await call('POST', `/v2/${target}/logs/import`, await exported.text(), {
      'content-type': 'application/octet-stream',
    });
    expect([imported.status, imported.text]).toEqual([204, '']);
    const logs = async (ledger: string) =>
      (await call('GET', `/v2/${ledger}/logs?pageSize=10`)).body.cursor.data;
    expect(await logs(target)).toEqual(await logs(source));
    const crossings = async (ledger: string) =>
      (await ledgerEventsOf(runtime, ledger))
        .filter((e) => e.type === 'ledger.balance_monitor_triggered')
        .map((e) => {
          const p = (e.envelope as { payload: Record<string, unknown> }).payload;
          return [p.monitor, p.logId, p.before, p.after];
        });
    expect(await crossings(source)).toEqual([
      [changes, 1n, 0n, 60n],
      [changes, 2n, 60n, 110n],
      [changes, 3n, 110n, 150n],
    ]);
    expect(await crossings(target)).toEqual([[above, 2n, 60n, 110n]]);
  });

  it('under 20 concurrent spends in group commit: one crossing below, and a chain of changes in commit order', async () => {
    const name = await fresh();
    const watch = async (condition: unknown) =>
      (await call('POST', `/v2/${name}/monitors`, { account: 'users:1', asset: 'USD', condition }))
        .body.data.id as string;
    expect(
      (
        await call('POST', `/v2/${name}/transactions`, {
          postings: [{ source: 'world', destination: 'users:1', amount: 100, asset: 'USD' }],
        })
      ).status,
    ).toBe(200);
    const below = await watch({ type: 'below', amount: 50 });
    const changes = await watch({ type: 'changes' });
    const spends = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('POST', `/v2/${name}/transactions`, {
          postings: [{ source: 'users:1', destination: 'shop', amount: 5, asset: 'USD' }],
        }),
      ),
    );
    expect(spends.map((s) => s.status)).toEqual(Array(20).fill(200));
    const events = (await ledgerEventsOf(runtime, name))
      .filter((e) => e.type === 'ledger.balance_monitor_triggered')
      .map((e) => (e.envelope as { payload: Record<string, bigint | string> }).payload);
    const crossedBelow = events.filter((p) => p.monitor === below);
    expect(crossedBelow.map((p) => [p.before, p.after])).toEqual([[50n, 45n]]);
    const chain = events.filter((p) => p.monitor === changes);
    // In log order, each change starts where the one before it ended: 100, 95, ..., 0.
    expect(chain.map((p) => [p.before, p.after])).toEqual(
      Array.from({ length: 20 }, (_, i) => [BigInt(100 - 5 * i), BigInt(95 - 5 * i)]),
    );
    expect(chain.map((p) => p.logId)).toEqual(
      [...chain.map((p) => p.logId)].sort((a, b) => Number(a) - Number(b)),
    );
  });
});
