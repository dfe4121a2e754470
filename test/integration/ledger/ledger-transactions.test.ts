import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json/bigint-json.js';
import { DEFAULT_FEATURES } from '../../../lib/ledger/domain/features.js';
import { logHash } from '../../../lib/ledger/domain/logs.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;
const fresh = async (body?: unknown) => {
  const name = `l${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`, body);
  expect(res.status, res.text).toBe(204);
  return name;
};
const tx = (ledger: string, body: unknown, query = '', headers: Record<string, string> = {}) =>
  call('POST', `/v2/${ledger}/transactions${query}`, body, headers);
const send = (
  source: string,
  destination: string,
  amount: bigint | number | string,
  asset = 'USD/2',
) => ({ source, destination, amount, asset });

async function scanAll(table: string) {
  const { Items = [] } = await runtime.doc.send(new ScanCommand({ TableName: table }));
  return Items;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('ledgers', () => {
  it('creates a ledger with default bucket and features, and reads it back', async () => {
    const name = await fresh();
    const res = await call('GET', `/v2/${name}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name,
      bucket: '_default',
      metadata: {},
      features: DEFAULT_FEATURES,
    });
    expect(typeof res.body.data.id).toBe('bigint');
    expect(res.body.data.addedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/);
  });

  it('merges partial features over the defaults and keeps bucket and metadata', async () => {
    const name = await fresh({
      bucket: 'b1',
      metadata: { team: 'core' },
      features: { HASH_LOGS: 'DISABLED' },
    });
    const { body } = await call('GET', `/v2/${name}`);
    expect(body.data).toMatchObject({
      bucket: 'b1',
      metadata: { team: 'core' },
      features: { ...DEFAULT_FEATURES, HASH_LOGS: 'DISABLED' },
    });
  });

  it('refuses a taken name, bad names, reserved names, unknown features and values', async () => {
    const name = await fresh();
    const again = await call('POST', `/v2/${name}`);
    expect(again.status).toBe(400);
    expect(again.body.errorCode).toBe('LEDGER_ALREADY_EXISTS');
    for (const [path, body, message] of [
      ['/v2/_info2!', undefined, 'ledger: name must match'],
      [`/v2/${'x'.repeat(64)}`, undefined, 'ledger: name must match'],
      ['/v2/_healthcheck', undefined, 'reserved'],
      ['/v2/okname1', { features: { NOPE: 'ON' } }, 'features.NOPE: unknown feature'],
      [
        '/v2/okname2',
        { features: { HASH_LOGS: 'ON' } },
        'features.HASH_LOGS: must be one of SYNC, DISABLED',
      ],
      ['/v2/okname3', { bucket: 'bad bucket' }, 'body.bucket'],
      ['/v2/okname4', { extra: 1 }, 'body.extra'],
    ] as Array<[string, unknown, string]>) {
      const res = await call('POST', path, body);
      expect(res.status, path).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain(message);
    }
    expect((await call('GET', '/v2/okname1')).status).toBe(404);
  });

  it('answers NOT_FOUND on GET of a missing ledger and LEDGER_NOT_FOUND under it', async () => {
    const get = await call('GET', '/v2/missing-ledger');
    expect(get.status).toBe(404);
    expect(get.body.errorCode).toBe('NOT_FOUND');
    const under = await call('GET', '/v2/missing-ledger/transactions');
    expect(under.status).toBe(404);
    expect(under.body.errorCode).toBe('LEDGER_NOT_FOUND');
    // Names that cannot be ledgers (over-long, hostile) are not found, without a lookup.
    for (const name of ['x'.repeat(5000), '%22%27%3B--', 'caf%C3%A9']) {
      const res = await call('GET', `/v2/${name}/transactions`);
      expect(res.status, name.slice(0, 10)).toBe(404);
      expect(res.body.errorCode).toBe('LEDGER_NOT_FOUND');
    }
    expect((await call('GET', `/v2/${'x'.repeat(5000)}`)).status).toBe(404);
  });

  it('lists ledgers by id with cursors, and filters by bucket', async () => {
    const { runtime: own } = await testTables();
    const { call: c } = await ledgerClient(own);
    for (const [name, bucket] of [
      ['a1', 'x'],
      ['a2', 'y'],
      ['a3', 'x'],
      ['a4', 'x'],
    ])
      expect((await c('POST', `/v2/${name}`, { bucket })).status).toBe(204);
    const first = await c('GET', '/v2?pageSize=2');
    expect(first.body.cursor.data.map((l: { name: string }) => l.name)).toEqual(['a1', 'a2']);
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await c('GET', `/v2?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data.map((l: { name: string }) => l.name)).toEqual(['a3', 'a4']);
    const x = await c('GET', '/v2?bucket=x&pageSize=2');
    expect(x.body.cursor.data.map((l: { name: string }) => l.name)).toEqual(['a1', 'a3']);
    const x2 = await c('GET', `/v2?cursor=${x.body.cursor.next}`);
    expect(x2.body.cursor.data.map((l: { name: string }) => l.name)).toEqual(['a4']);
    expect(x2.body.cursor.hasMore).toBe(false);
  });

  it('merges and deletes ledger metadata', async () => {
    const name = await fresh({ metadata: { a: '1' } });
    expect((await call('PUT', `/v2/${name}/metadata`, { b: '2' })).status).toBe(204);
    expect((await call('DELETE', `/v2/${name}/metadata/a`)).status).toBe(204);
    expect((await call('GET', `/v2/${name}`)).body.data.metadata).toEqual({ b: '2' });
    expect((await call('PUT', `/v2/${name}/metadata`, { b: 2 })).status).toBe(400);
  });
});

describe('transactions', () => {
  it('funds from world and transfers, with exact pre- and post-commit volumes', async () => {
    const ledger = await fresh();
    const funded = await tx(ledger, {
      postings: [send('world', 'users:1', 100n)],
      metadata: { why: 'top-up' },
    });
    expect(funded.status, funded.text).toBe(200);
    expect(funded.body.data).toMatchObject({
      id: 1n,
      metadata: { why: 'top-up' },
      reverted: false,
    });
    expect(funded.body.data.postCommitVolumes).toEqual({
      world: { 'USD/2': { input: 0n, output: 100n, balance: -100n } },
      'users:1': { 'USD/2': { input: 100n, output: 0n, balance: 100n } },
    });
    expect(funded.body.data.preCommitVolumes).toEqual({
      world: { 'USD/2': { input: 0n, output: 0n, balance: 0n } },
      'users:1': { 'USD/2': { input: 0n, output: 0n, balance: 0n } },
    });
    const moved = await tx(ledger, { postings: [send('users:1', 'users:2', '30')] });
    expect(moved.body.data.id).toBe(2n);
    expect(moved.body.data.postCommitVolumes['users:1']['USD/2']).toEqual({
      input: 100n,
      output: 30n,
      balance: 70n,
    });
    expect(moved.body.data.preCommitVolumes['users:1']['USD/2']).toEqual({
      input: 100n,
      output: 0n,
      balance: 100n,
    });
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data).toEqual({
      accounts: 3n,
      transactions: 2n,
    });
  });

  it('keeps 38-digit amounts exact, and writes them as strings on request', async () => {
    const ledger = await fresh();
    const big = 10n ** 38n - 1n;
    const res = await tx(
      ledger,
      `{"postings":[{"source":"world","destination":"vault","amount":${big},"asset":"COIN"}]}`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(`"amount":${big}`);
    const asStrings = await call('GET', `/v2/${ledger}/transactions/1?expand=volumes`, undefined, {
      'Formance-Bigint-As-String': 'true',
    });
    expect(asStrings.text).toContain(`"amount":"${big}"`);
    expect(asStrings.text).toContain(`"balance":"-${big}"`);
    expect(asStrings.text).toContain('"id":1,');
  });

  it('refuses invalid amounts, addresses and assets with VALIDATION, writing nothing', async () => {
    const ledger = await fresh();
    const before = (await scanAll(runtime.config.tables.ledger)).length;
    const cases: Array<[string, string]> = [
      [
        `{"postings":[{"source":"world","destination":"a","amount":${10n ** 300n},"asset":"USD"}]}`,
        'at most 300 digits',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":1.5,"asset":"USD"}]}',
        'whole number',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":-1,"asset":"USD"}]}',
        'must not be negative',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":"-1","asset":"USD"}]}',
        'must not be negative',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":"1e3","asset":"USD"}]}',
        'decimal integer string',
      ],
      [
        '{"postings":[{"source":"world","destination":"a b","amount":1,"asset":"USD"}]}',
        'body.postings.0.destination',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":1,"asset":"usd"}]}',
        'body.postings.0.asset',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":1,"asset":"USD","extra":1}]}',
        'body.postings.0.extra',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":1,"asset":"USD"}],"timestamp":"yesterday"}',
        'body.timestamp',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":1,"asset":"USD"}],"metadata":{"k":1}}',
        'body.metadata',
      ],
      [
        '{"script":{"plain":"send [USD 1] (source=@world destination=@a)","extra":1}}',
        'body.script.extra',
      ],
      ['{"script":{"vars":{}}}', 'body.script.plain'],
      [
        '{"script":{"plain":"send [USD 1] (source=@world destination=@a)"},"postings":[{"source":"world","destination":"a","amount":1,"asset":"USD"}]}',
        'not both',
      ],
      [
        '{"postings":[{"source":"world","destination":"a","amount":1,"asset":"USD"}],"runtime":"fast"}',
        'body.runtime',
      ],
      ['{"postings":', 'body is not valid JSON'],
    ];
    for (const [body, message] of cases) {
      const res = await tx(ledger, body);
      expect(res.status, body).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage, body).toContain(message);
    }
    const none = await tx(ledger, { postings: [] });
    expect(none.status).toBe(400);
    expect(none.body.errorCode).toBe('NO_POSTINGS');
    expect((await tx(ledger, {})).body.errorCode).toBe('NO_POSTINGS');
    expect((await scanAll(runtime.config.tables.ledger)).length).toBe(before);
  });

  it('applies postings in order: an earlier posting may fund a later one; otherwise INSUFFICIENT_FUND and nothing written', async () => {
    const ledger = await fresh();
    const chained = await tx(ledger, {
      postings: [send('world', 'a', 10n), send('a', 'b', 10n), send('b', 'c', 4n)],
    });
    expect(chained.status, chained.text).toBe(200);
    expect(chained.body.data.postCommitVolumes.b['USD/2'].balance).toBe(6n);

    const refused = await tx(ledger, { postings: [send('b', 'c', 7n), send('world', 'b', 100n)] });
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(refused.body.errorMessage).toContain('"b"');
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(1n);
    expect((await call('GET', `/v2/${ledger}/transactions/2`)).status).toBe(404);

    const forced = await tx(ledger, { postings: [send('c', 'd', 100n)] }, '?force=true');
    expect(forced.status).toBe(200);
    expect(forced.body.data.postCommitVolumes.c['USD/2'].balance).toBe(-96n);
    const forcedInBody = await tx(ledger, { postings: [send('d', 'e', 1000n)], force: true });
    expect(forcedInBody.status).toBe(200);
  });

  it('keeps references unique per ledger (409 CONFLICT)', async () => {
    const ledger = await fresh();
    expect(
      (await tx(ledger, { postings: [send('world', 'a', 1n)], reference: 'order-1' })).status,
    ).toBe(200);
    const again = await tx(ledger, { postings: [send('world', 'a', 2n)], reference: 'order-1' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      errorCode: 'CONFLICT',
      errorMessage: 'duplicate reference "order-1"',
    });
    const other = await fresh();
    expect(
      (await tx(other, { postings: [send('world', 'a', 1n)], reference: 'order-1' })).status,
    ).toBe(200);
  });

  it('replays an Idempotency-Key with the same body, refuses it with another', async () => {
    const ledger = await fresh();
    const body = { postings: [send('world', 'a', 5n)], metadata: { n: '1' } };
    const first = await tx(ledger, body, '', { 'Idempotency-Key': 'ik-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotency-hit')).toBeNull();
    const replay = await tx(
      ledger,
      { metadata: { n: '1' }, postings: [send('world', 'a', 5n)] },
      '',
      { 'Idempotency-Key': 'ik-1' },
    );
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotency-hit')).toBe('true');
    expect(replay.text).toBe(first.text);
    const different = await tx(ledger, { postings: [send('world', 'a', 6n)] }, '', {
      'Idempotency-Key': 'ik-1',
    });
    expect(different.status).toBe(400);
    expect(different.body.errorMessage).toContain('Idempotency-Key');
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(1n);
    const stored = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#IK#ik-1` },
      }),
    );
    expect(Number(stored.Items![0]!.expiresAt)).toBeGreaterThan(Date.now() / 1000 + 24 * 3600);
  });

  it('dry-runs without writing anything or emitting an event', async () => {
    const ledger = await fresh();
    const itemsBefore = (await scanAll(runtime.config.tables.ledger)).length;
    const dry = await tx(ledger, { postings: [send('world', 'a', 5n)] }, '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body.data.id).toBe(1n);
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).status).toBe(404);
    expect((await scanAll(runtime.config.tables.ledger)).length).toBe(itemsBefore);
    expect(await ledgerEventsOf(runtime, ledger)).toEqual([]);
    expect((await tx(ledger, { postings: [send('world', 'a', 5n)] }, '?dryRun=maybe')).status).toBe(
      400,
    );
  });

  it('accepts a back-dated timestamp and keeps microseconds', async () => {
    const ledger = await fresh();
    const res = await tx(ledger, {
      postings: [send('world', 'a', 1n)],
      timestamp: '2020-01-02T03:04:05.123456+01:00',
    });
    expect(res.body.data.timestamp).toBe('2020-01-02T02:04:05.123456Z');
    expect(res.body.data.insertedAt).not.toBe(res.body.data.timestamp);
  });

  it('carries one event per commit on its log item, in the same transaction (no events-table row)', async () => {
    const ledger = await fresh();
    await tx(ledger, {
      postings: [send('world', 'a', 7n)],
      accountMetadata: { a: { kind: 'user' } },
    });
    const events = await ledgerEventsOf(runtime, ledger);
    expect(events).toHaveLength(1);
    expect(events[0]!.item).toMatchObject({
      pk: `E#default#L#${ledger}#LOG`,
      sk: '000000000000001',
    });
    expect(
      (await scanAll(runtime.config.tables.events)).filter((r) =>
        String(r.body).includes(`"ledger":"${ledger}"`),
      ),
    ).toEqual([]);
    const envelope = events[0]!.envelope as any;
    expect(envelope).toMatchObject({
      app: 'ledger',
      version: 'v2',
      type: 'ledger.committed_transactions',
      idempotency_key: '',
    });
    expect(envelope.payload.ledger).toBe(ledger);
    expect(envelope.payload.accountMetadata).toEqual({ a: { kind: 'user' } });
    expect(envelope.payload.transactions[0].postCommitVolumes.a.USD).toBeUndefined();
    expect(envelope.payload.transactions[0].postCommitVolumes.a['USD/2']).toEqual({
      input: 7n,
      output: 0n,
      balance: 7n,
    });
  });

  it('chains log hashes when HASH_LOGS=SYNC, and leaves them empty when DISABLED', async () => {
    const ledger = await fresh();
    for (let i = 0; i < 3; i++) await tx(ledger, { postings: [send('world', 'a', BigInt(i))] });
    const logs = (
      await runtime.doc.send(
        new QueryCommand({
          TableName: runtime.config.tables.ledger,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#LOG` },
        }),
      )
    ).Items!;
    expect(logs.map((l) => Number(l.id))).toEqual([1, 2, 3]);
    let previous = '';
    for (const item of logs) {
      const entry = parseJson(String(item.body)) as any;
      const { hash, ...rest } = entry;
      expect(hash).toBe(logHash(previous, { ...rest, id: Number(rest.id) }));
      previous = hash;
    }
    const plain = await fresh({ features: { HASH_LOGS: 'DISABLED' } });
    await tx(plain, { postings: [send('world', 'a', 1n)] });
    const plainLogs = (
      await runtime.doc.send(
        new QueryCommand({
          TableName: runtime.config.tables.ledger,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': `E#default#L#${plain}#LOG` },
        }),
      )
    ).Items!;
    expect((parseJson(String(plainLogs[0]!.body)) as any).hash).toBe('');
  });

  it('lists transactions newest first, in reverse on request, with cursors and expand=volumes', async () => {
    const ledger = await fresh();
    for (let i = 1; i <= 5; i++) await tx(ledger, { postings: [send('world', 'a', BigInt(i))] });
    const page1 = await call('GET', `/v2/${ledger}/transactions?pageSize=2`);
    expect(page1.body.cursor.data.map((t: { id: bigint }) => t.id)).toEqual([5n, 4n]);
    expect(page1.body.cursor.data[0].postCommitVolumes).toBeUndefined();
    const page2 = await call('GET', `/v2/${ledger}/transactions?cursor=${page1.body.cursor.next}`);
    expect(page2.body.cursor.data.map((t: { id: bigint }) => t.id)).toEqual([3n, 2n]);
    const reversed = await call(
      'GET',
      `/v2/${ledger}/transactions?reverse=true&pageSize=3&expand=volumes`,
    );
    expect(reversed.body.cursor.data.map((t: { id: bigint }) => t.id)).toEqual([1n, 2n, 3n]);
    expect(reversed.body.cursor.data[2].postCommitVolumes.a['USD/2'].balance).toBe(6n);
    const next = await call(
      'GET',
      `/v2/${ledger}/transactions?cursor=${reversed.body.cursor.next}`,
    );
    expect(next.body.cursor.data.map((t: { id: bigint }) => t.id)).toEqual([4n, 5n]);
    expect((await call('GET', `/v2/${ledger}/transactions?expand=nonsense`)).status).toBe(400);
    const pit = await call('GET', `/v2/${ledger}/transactions?pit=yesterday`);
    expect(pit.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'pit: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)',
    });
    expect((await call('GET', `/v2/${ledger}/transactions/abc`)).status).toBe(404);
  });
});

describe('concurrency', () => {
  it('assigns gapless ids in commit order under parallel writers', async () => {
    const ledger = await fresh();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => tx(ledger, { postings: [send('world', `u:${i}`, 1n)] })),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect(results.map((r) => r.body.data.id as bigint).sort((a, b) => Number(a - b))).toEqual(
      Array.from({ length: 12 }, (_, i) => BigInt(i + 1)),
    );
  });

  it('lets only funded spends through when many race on one account (no lost update)', async () => {
    const ledger = await fresh();
    await tx(ledger, { postings: [send('world', 'wallet', 5n)] });
    const spends = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        tx(ledger, { postings: [send('wallet', `shop:${i}`, 1n)] }),
      ),
    );
    expect(spends.filter((r) => r.status === 200)).toHaveLength(5);
    expect(
      spends.filter((r) => r.status === 400).every((r) => r.body.errorCode === 'INSUFFICIENT_FUND'),
    ).toBe(true);
    const after = await tx(ledger, { postings: [send('world', 'probe', 0n)] });
    expect(after.body.data.id).toBe(7n);
    const stats = await call('GET', `/v2/${ledger}/stats`);
    expect(stats.body.data.transactions).toBe(7n);
  });
});
