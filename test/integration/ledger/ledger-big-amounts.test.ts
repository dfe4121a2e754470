/**
 * Money exact at any size (up to 300 digits; docs/decisions/ledger.md, "Amounts"): amounts of 39, 87 and 200 digits
 * through postings, Numscript, reads, the balance index and filters, aggregates, point-in-time reads, reverts, log
 * export and import and the v1 routes, over raw HTTP on the in-process ledger app (exact JSON numbers both ways).
 * What beyond 38 digits is stored as text, and what fits is still a DynamoDB Number.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT } from '../../../lib/environments/environment-id.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const A39 = 123456789012345678901234567890123456789n;
const A87 = BigInt(`3${'14159265358979323846'.repeat(5).slice(0, 86)}`);
const A200 = 5n * 10n ** 199n + 12345n;
const SMALL = 100n;
const B = A200 - 5n; // what a200 passes on to b
const WORLD = -(SMALL + A39 + A87 + A200);

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let app: Awaited<ReturnType<typeof ledgerClient>>['app'];
let token = '';
const run = Date.now() % 100000;
let counter = 0;
const fresh = async (features?: Record<string, string>) => {
  const name = `big${++counter}-${run}`;
  const res = await call('POST', `/v2/${name}`, features ? { features } : undefined);
  expect(res.status, res.text).toBe(204);
  return name;
};
const send = (source: string, destination: string, amount: bigint) => ({
  source,
  destination,
  amount,
  asset: 'USD',
});
const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query, big))}`;
const big = (_: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
const addresses = (res: { body: any }) =>
  (res.body.cursor.data as Array<{ address: string }>).map((a) => a.address).sort();

/** Funds small, a39, a87 and a200 from world, then a200 passes all but 5 to b (four transactions, dated). */
async function seed(ledger: string) {
  const steps = [
    [send('world', 'small', SMALL), '2026-01-01T00:00:00Z'],
    [send('world', 'a39', A39), '2026-01-02T00:00:00Z'],
    [send('world', 'a87', A87), '2026-01-03T00:00:00Z'],
    [send('world', 'a200', A200), '2026-01-04T00:00:00Z'],
    [send('a200', 'b', B), '2026-01-05T00:00:00Z'],
  ] as const;
  for (const [posting, timestamp] of steps) {
    const res = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [posting],
      timestamp,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(`"amount":${posting.amount}`);
  }
}

/** A volume item's attributes as DynamoDB holds them (type and text). */
async function rawVolume(ledger: string, account: string) {
  const { Item } = await runtime.doc.send(
    new GetItemCommand({
      TableName: runtime.config.tables.ledger,
      Key: {
        pk: {
          S: ledgerKeys.volume({ environment: DEFAULT_ENVIRONMENT, name: ledger }, account, 'USD')
            .pk,
        },
        sk: { S: `V#USD` },
      },
      ConsistentRead: true,
    }),
  );
  return Item;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call, app } = await ledgerClient(runtime));
  token = await tokenFor(authApp(runtime), ADMIN);
});

describe('amounts of 39, 87 and 200 digits', () => {
  let indexed = '';
  let plain = '';
  beforeAll(async () => {
    indexed = await fresh({ INDEX_ACCOUNT_BALANCES: 'ON' });
    plain = await fresh();
    await seed(indexed);
    await seed(plain);
  });

  it('are answered exactly, as numbers and as strings on request', async () => {
    const tx = await call('GET', `/v2/${indexed}/transactions/4?expand=volumes`);
    expect(tx.text).toContain(`"amount":${A200}`);
    expect(tx.text).toContain(`"a200":{"USD":{"balance":${A200},"input":${A200},"output":0}}`);
    const world = await call('GET', `/v2/${indexed}/accounts/world?expand=volumes`, undefined, {
      'Formance-Bigint-As-String': 'true',
    });
    expect(world.body.data.volumes.USD).toEqual({
      input: '0',
      output: String(-WORLD),
      balance: String(WORLD),
    });
    for (const [account, balance] of [
      ['a39', A39],
      ['a87', A87],
      ['a200', 5n],
      ['b', B],
    ] as const) {
      const res = await call('GET', `/v2/${indexed}/accounts/${account}?expand=volumes`);
      expect(res.body.data.volumes.USD.balance, account).toBe(balance);
    }
  });

  it('are stored as text beyond 38 digits, and as DynamoDB Numbers while they fit', async () => {
    expect(await rawVolume(indexed, 'small')).toMatchObject({
      input: { N: '100' },
      output: { N: '0' },
      gsi1sk: { S: `P${'0'.repeat(35)}100#small` },
    });
    expect(await rawVolume(indexed, 'a87')).toMatchObject({
      input: { S: String(A87) },
      output: { N: '0' },
      gsi1sk: { S: `Q087${A87}#a87` },
    });
    expect(await rawVolume(indexed, 'a200')).toMatchObject({
      input: { S: String(A200) },
      output: { S: String(B) },
    });
    expect((await rawVolume(indexed, 'world'))?.output).toEqual({ S: String(-WORLD) });
  });

  it('are filtered on exactly, with the balance index and without', async () => {
    for (const ledger of [indexed, plain]) {
      const list = (query: unknown) => call('GET', `/v2/${ledger}/accounts?${q(query)}`);
      expect(addresses(await list({ $gt: { 'balance[USD]': A87 - 1n } })), ledger).toEqual([
        'a87',
        'b',
      ]);
      expect(addresses(await list({ $match: { 'balance[USD]': A87 } }))).toEqual(['a87']);
      expect(addresses(await list({ $gt: { 'balance[USD]': A87 } }))).toEqual(['b']);
      expect(addresses(await list({ $lt: { 'balance[USD]': -A87 } }))).toEqual(['world']);
      expect(addresses(await list({ $lte: { 'balance[USD]': WORLD } }))).toEqual(['world']);
      expect(addresses(await list({ $lt: { 'balance[USD]': WORLD } }))).toEqual([]);
      expect(
        addresses(
          await list({
            $and: [{ $gte: { 'balance[USD]': 0 } }, { $lte: { 'balance[USD]': A39 } }],
          }),
        ),
      ).toEqual(['a200', 'a39', 'small']);
      // Operands beyond any balance are valid queries.
      expect(addresses(await list({ $gt: { 'balance[USD]': 10n ** 400n } }))).toEqual([]);
      expect(addresses(await list({ $gt: { 'balance[USD]': -(10n ** 400n) } }))).toHaveLength(6);
      const count = await call(
        'HEAD',
        `/v2/${ledger}/accounts?${q({ $gt: { 'balance[USD]': 10n ** 38n } })}`,
      );
      expect(count.headers.get('count')).toBe('3');
    }
  });

  it('page through the balance index in balance order, across encodings', async () => {
    const first = await call(
      'GET',
      `/v2/${indexed}/accounts?pageSize=2&${q({ $gte: { 'balance[USD]': -(10n ** 300n) } })}`,
    );
    const seen = first.body.cursor.data.map((a: { address: string }) => a.address);
    let next = first.body.cursor.next;
    while (next) {
      const page = await call('GET', `/v2/${indexed}/accounts?cursor=${next}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.cursor.data.map((a: { address: string }) => a.address));
      next = page.body.cursor.next;
    }
    expect(seen).toEqual(['world', 'a200', 'small', 'a39', 'a87', 'b']);
  });

  it('are summed exactly by aggregated balances, filtered, and at a point in time', async () => {
    for (const ledger of [indexed, plain]) {
      const all = await call('GET', `/v2/${ledger}/aggregate/balances`);
      expect(all.text).toBe('{"data":{"USD":0}}');
      const above = await call(
        'GET',
        `/v2/${ledger}/aggregate/balances?${q({ $gt: { 'balance[USD]': 10n ** 38n } })}`,
      );
      expect(above.body.data).toEqual({ USD: A39 + A87 + B });
      const pit = await call(
        'GET',
        `/v2/${ledger}/aggregate/balances?pit=2026-01-04T12:00:00Z&${q({ $match: { address: 'a200' } })}`,
      );
      expect(pit.body.data).toEqual({ USD: A200 });
    }
    const account = await call(
      'GET',
      `/v2/${plain}/accounts/a200?expand=effectiveVolumes&pit=2026-01-04T12:00:00Z`,
    );
    expect(account.body.data.effectiveVolumes, account.text).toEqual({
      USD: { input: A200, output: 0n, balance: A200 },
    });
    const volumes = await call(
      'GET',
      `/v2/${plain}/volumes?endTime=2026-01-04T12:00:00Z&${q({ $match: { account: 'world' } })}`,
    );
    expect(volumes.body.cursor.data).toEqual([
      {
        account: 'world',
        asset: 'USD',
        input: 0n,
        output: SMALL + A39 + A87 + A200,
        balance: WORLD,
      },
    ]);
  });

  it('go through Numscript exactly: literals, variables and allotments', async () => {
    const ledger = await fresh();
    await seed(ledger);
    const third = B / 3n;
    const script = `vars { monetary $m }
send [USD ${A87}] ( source = @a87 destination = @c )
send $m ( source = @b destination = { 1/3 to @x remaining to @y } )`;
    const res = await call('POST', `/v2/${ledger}/transactions`, {
      script: { plain: script, vars: { m: `USD ${B}` } },
    });
    expect(res.status, res.text).toBe(200);
    const balance = async (a: string) =>
      (await call('GET', `/v2/${ledger}/accounts/${a}?expand=volumes`)).body.data.volumes.USD
        ?.balance;
    expect(await balance('c')).toBe(A87);
    expect(await balance('a87')).toBe(0n);
    // 1/3 rounds down, the remainder takes the rest: nothing is lost at 200 digits.
    expect((await balance('x')) + (await balance('y'))).toBe(B);
    expect(await balance('y')).toBe(B - (await balance('x')));
    expect([third, third + 1n]).toContain(await balance('x'));
    expect(await balance('b')).toBe(0n);
  });

  it('are reverted exactly', async () => {
    const ledger = await fresh({ INDEX_ACCOUNT_BALANCES: 'ON' });
    await seed(ledger);
    const res = await call('POST', `/v2/${ledger}/transactions/5/revert`);
    expect(res.status, res.text).toBe(201);
    const a200 = await call('GET', `/v2/${ledger}/accounts/a200?expand=volumes`);
    expect(a200.body.data.volumes.USD).toEqual({ input: A200 + B, output: B, balance: A200 });
    const list = await call(
      'GET',
      `/v2/${ledger}/accounts?${q({ $match: { 'balance[USD]': A200 } })}`,
    );
    expect(addresses(list)).toEqual(['a200']);
  });

  it('survive a log export and import into an empty ledger', async () => {
    const exported = await app.request(`/api/ledger/v2/${indexed}/logs/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await exported.text();
    expect(text).toContain(`"amount":${A200}`);
    const target = await fresh();
    const imported = await app.request(`/api/ledger/v2/${target}/logs/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: text,
    });
    expect(imported.status, await imported.text()).toBe(204);
    for (const account of ['world', 'a39', 'a87', 'a200', 'b']) {
      const read = (l: string) => call('GET', `/v2/${l}/accounts/${account}?expand=volumes`);
      const [from, to] = [await read(indexed), await read(target)];
      expect(to.body.data.volumes, account).toEqual(from.body.data.volumes);
    }
  });

  it('are served by the v1 routes', async () => {
    const v1 = await call('GET', `/${plain}/accounts/a87`);
    expect(v1.body.data.balances).toEqual({ USD: A87 });
    expect(v1.body.data.volumes).toEqual({ USD: { input: A87, output: 0n, balance: A87 } });
    const filtered = await call('GET', `/${plain}/accounts?balance=${A87}&balanceOperator=gte`);
    expect(addresses(filtered)).toEqual(['a87', 'b']);
    const aggregate = await call('GET', `/${plain}/aggregate/balances?address=a.*`);
    expect(aggregate.body.data).toEqual({ USD: A39 + A87 + 5n });
    const created = await call('POST', `/${plain}/transactions`, {
      postings: [send('b', 'v1', A87)],
    });
    expect(created.status, created.text).toBe(200);
    expect(created.text).toContain(`"amount":${A87}`);
    const balances = await call('GET', `/${plain}/balances?address=v1`);
    expect(balances.body.cursor.data).toEqual([{ v1: { USD: A87 } }]);
  });
});

describe('amounts beyond the limit', () => {
  it('are refused with VALIDATION, writing nothing: 301 digits, or volumes that would outgrow 300', async () => {
    const ledger = await fresh();
    const over = await call(
      'POST',
      `/v2/${ledger}/transactions`,
      `{"postings":[{"source":"world","destination":"a","amount":${10n ** 300n},"asset":"USD"}]}`,
    );
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body.postings.0.amount: must have at most 300 digits',
    });
    const max = 10n ** 300n - 1n;
    expect(
      (await call('POST', `/v2/${ledger}/transactions`, { postings: [send('world', 'a', max)] }))
        .status,
    ).toBe(200);
    const outgrow = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [send('world', 'b', 1n)],
    });
    expect(outgrow.status).toBe(400);
    expect(outgrow.body.errorMessage).toBe('volumes of USD would exceed the 300-digit limit');
    const exponent = await call(
      'POST',
      `/v2/${ledger}/transactions`,
      '{"postings":[{"source":"world","destination":"a","amount":1e90,"asset":"USD"}]}',
    );
    expect(exponent.body.errorMessage).toBe(
      'body.postings.0.amount: must be written without an exponent when above 2^53',
    );
    const list = await call('GET', `/v2/${ledger}/transactions`);
    expect(list.body.cursor.data).toHaveLength(1);
    expect((await call('GET', `/v2/${ledger}/accounts/b`)).status).toBe(404);
  });
});

describe('the largest transaction at the largest amounts', () => {
  it('commits and reverts 100 postings of 298-digit amounts around 45 accounts (about the most pairs one write takes): every item within its size', async () => {
    const ledger = await fresh({ INDEX_ACCOUNT_BALANCES: 'ON' });
    const amount = 10n ** 297n;
    const accounts = 45;
    for (let from = 0; from < accounts; from += 15) {
      const fund = await call('POST', `/v2/${ledger}/transactions`, {
        postings: Array.from({ length: 15 }, (_, i) => send('world', `s:${from + i}`, amount)),
      });
      expect(fund.status, fund.text.slice(0, 300)).toBe(200);
    }
    // 100 postings around the ring of accounts, each at 297 or 298 digits.
    const postings = Array.from({ length: 100 }, (_, i) =>
      send(`s:${i % accounts}`, `s:${(i + 1) % accounts}`, amount - BigInt(i)),
    );
    const moved = await call('POST', `/v2/${ledger}/transactions`, { postings });
    expect(moved.status, moved.text.slice(0, 300)).toBe(200);
    expect(moved.text).toContain(`"amount":${amount - 99n}`);
    const reverted = await call('POST', `/v2/${ledger}/transactions/4/revert`);
    expect(reverted.status, reverted.text.slice(0, 300)).toBe(201);
    const first = await call('GET', `/v2/${ledger}/accounts/s:0?expand=volumes`);
    expect(first.body.data.volumes.USD.balance).toBe(amount);
    const aggregate = await call(
      'GET',
      `/v2/${ledger}/aggregate/balances?${q({ $match: { address: 's:' } })}`,
    );
    expect(aggregate.body.data).toEqual({ USD: BigInt(accounts) * amount });
    const top = await call(
      'GET',
      `/v2/${ledger}/accounts?${q({ $gt: { 'balance[USD]': amount - 1n } })}&pageSize=100`,
    );
    expect(top.body.cursor.data).toHaveLength(accounts);
  });
});
