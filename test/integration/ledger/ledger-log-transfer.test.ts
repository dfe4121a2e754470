import type { SDK } from '@formance/formance-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../../infra/local/platform.js';
import { parseJson, stringifyJson } from '../../../lib/json/bigint-json.js';
import { bodyLines } from '../../../lib/ledger/domain/body-lines.js';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import { type LogEntry, logHash } from '../../../lib/ledger/domain/logs.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, tokenFor } from '../../support/auth.js';
import { ledgerClient } from '../../support/ledger.js';
import { testClientToken } from '../../support/platform.js';
import { startSdkPlatform } from '../../support/sdk.js';
import { testTables } from '../../support/tables.js';

const send = (source: string, destination: string, amount: bigint, asset = 'USD/2') => ({
  source,
  destination,
  amount,
  asset,
});
const OCTETS = { 'content-type': 'application/octet-stream' };

describe('POST /v2/<ledger>/logs/export and /logs/import', () => {
  let runtime: ServiceRuntime;
  let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
  let app: Awaited<ReturnType<typeof ledgerClient>>['app'];
  let token = '';
  let clock = 0;
  /** An export, read as text (the JSON caller would parse it). */
  const exportOf = async (ledger: string) => {
    const res = await app.request(`/api/ledger/v2/${ledger}/logs/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const run = `${Date.now() % 1_000_000}`;
  const source = `logx-src-${run}`;
  let exported = '';
  let names = 0;
  /** A new, empty ledger. */
  const fresh = async () => {
    const name = `logx-${run}-${++names}`;
    expect((await call('POST', `/v2/${name}`)).status).toBe(204);
    return name;
  };
  const all = async (path: string) => {
    const res = await call('GET', `${path}${path.includes('?') ? '&' : '?'}pageSize=100`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.cursor.hasMore).toBe(false);
    return res.body.cursor.data as Array<Record<string, unknown>>;
  };
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const e = parseJson(l) as LogEntry;
        return { ...e, id: Number(e.id) };
      });
  const toText = (entries: unknown[]) => entries.map((e) => `${stringifyJson(e)}\n`).join('');

  beforeAll(async () => {
    ({ runtime } = await testTables());
    ({ call, app } = await ledgerClient(runtime, { now: () => clock }));
    token = await tokenFor(authApp(runtime), ADMIN);
    expect((await call('POST', `/v2/${source}`)).status).toBe(204);
    // Every log type, with references, metadata, account metadata, a backdated timestamp, an idempotency key,
    // a forced overdraft and both kinds of revert.
    const steps: Array<[string, string, string, unknown?, Record<string, string>?]> = [
      [
        '2026-03-01T10:00:00Z',
        'POST',
        '/transactions',
        {
          postings: [send('world', 'alice', 1000n), send('world', 'alice', 10n, 'EUR')],
          metadata: { order: '1' },
          reference: 'ref-1',
          accountMetadata: { alice: { tier: 'gold' } },
        },
        { 'Idempotency-Key': 'ik-1' },
      ],
      [
        '2026-03-01T10:00:01.123Z',
        'POST',
        '/transactions',
        {
          postings: [send('alice', 'bob', 200n), send('alice', 'carol', 5n, 'EUR')],
          timestamp: '2025-06-01T00:00:00Z',
        },
      ],
      ['2026-03-01T10:00:02Z', 'POST', '/transactions/1/metadata', { a: 'b' }],
      ['2026-03-01T10:00:03Z', 'DELETE', '/transactions/1/metadata/order'],
      ['2026-03-01T10:00:04Z', 'POST', '/accounts/bob/metadata', { k: 'v', keep: 'yes' }],
      ['2026-03-01T10:00:05Z', 'DELETE', '/accounts/bob/metadata/k'],
      [
        '2026-03-01T10:00:06Z',
        'POST',
        '/transactions/2/revert?force=true',
        { metadata: { why: 'oops' } },
      ],
      ['2026-03-01T10:00:07Z', 'POST', '/transactions/1/revert?atEffectiveDate=true', {}],
      [
        '2026-03-01T10:00:08Z',
        'POST',
        '/transactions?force=true',
        { postings: [send('bob', 'dave', 50n)] },
      ],
    ];
    for (const [date, method, path, body, headers] of steps) {
      clock = Date.parse(date);
      const res = await call(method, `/v2/${source}${path}`, body, headers);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    }
    clock = Date.parse('2026-04-01T00:00:00Z');
    const res = await exportOf(source);
    expect([res.status, res.type]).toEqual([200, 'application/octet-stream']);
    exported = res.text;
  });

  it('exports every log entry oldest first, one Log per line as the log list serves it', async () => {
    const listed = await all(`/v2/${source}/logs`);
    expect(listed.map((l) => l.type)).toEqual([
      'NEW_TRANSACTION',
      'REVERTED_TRANSACTION',
      'REVERTED_TRANSACTION',
      'DELETE_METADATA',
      'SET_METADATA',
      'DELETE_METADATA',
      'SET_METADATA',
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
    ]);
    expect(exported.endsWith('\n')).toBe(true);
    expect(exported.split('\n')).toHaveLength(10);
    // Same entries, same fields in the same order, the list reversed.
    expect(exported).toBe(toText([...listed].reverse()));
    expect(verifyChain(lines(exported))).toEqual({ ok: true, checked: 9 });
  });

  it('an export of an empty ledger is empty; of an unknown ledger, a 404', async () => {
    const empty = await exportOf(await fresh());
    expect([empty.status, empty.text]).toEqual([200, '']);
    const unknown = await call('POST', `/v2/logx-none-${run}/logs/export`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('imports an export into an empty ledger: identical log (dates and hashes), transactions, accounts, volumes and metadata', async () => {
    const target = await fresh();
    clock = Date.parse('2026-05-01T00:00:00Z');
    const res = await call('POST', `/v2/${target}/logs/import`, exported, OCTETS);
    expect([res.status, res.text]).toEqual([204, '']);

    expect(await all(`/v2/${target}/logs`)).toEqual(await all(`/v2/${source}/logs`));
    expect(await all(`/v2/${target}/transactions`)).toEqual(
      await all(`/v2/${source}/transactions`),
    );
    expect(await all(`/v2/${target}/accounts?expand=volumes`)).toEqual(
      await all(`/v2/${source}/accounts?expand=volumes`),
    );
    // Spot checks that the comparison is of real content.
    const accounts = await all(`/v2/${target}/accounts?expand=volumes`);
    const bob = accounts.find((a) => a.address === 'bob')!;
    expect(bob.metadata).toEqual({ keep: 'yes' });
    // 200 in (transaction 2), 200 out (its revert), 50 out (the forced overdraft).
    expect(bob.volumes).toEqual({ 'USD/2': { input: 200n, output: 250n, balance: -50n } });
    const tx2 = (await call('GET', `/v2/${target}/transactions/2`)).body.data;
    expect([tx2.timestamp, tx2.insertedAt, tx2.reverted, tx2.revertedAt]).toEqual([
      '2025-06-01T00:00:00Z',
      '2026-03-01T10:00:01.123Z',
      true,
      '2026-03-01T10:00:06Z',
    ]);
    const balances = (await call('GET', `/v2/${target}/aggregate/balances`)).body.data;
    expect(balances).toEqual((await call('GET', `/v2/${source}/aggregate/balances`)).body.data);
    expect(verifyChain(lines(exported))).toEqual({ ok: true, checked: 9 });

    // An exported import exports the same bytes.
    expect((await exportOf(target)).text).toBe(exported);
  });

  it('refuses an import into a ledger that has logs (400 IMPORT) and writes nothing', async () => {
    const res = await call('POST', `/v2/${source}/logs/import`, exported, OCTETS);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'IMPORT',
      errorMessage: `ledger "${source}" is not empty: logs are imported into a new ledger only (or continue one with after=<its last log id>)`,
    });
    expect(await all(`/v2/${source}/logs`)).toHaveLength(9);
  });

  it('refuses a tampered entry (changed amount, original hash) naming it; the request writes nothing', async () => {
    const entries = lines(exported);
    const tampered = structuredClone(entries);
    const tx = tampered[1]!.data.transaction as { postings: Array<{ amount: bigint }> };
    tx.postings[0]!.amount = 201n;
    const target = await fresh();
    const res = await call('POST', `/v2/${target}/logs/import`, toText(tampered), OCTETS);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'IMPORT',
      errorMessage: 'log 2: hash mismatch (the entry or one before it was changed)',
    });
    // The whole request is checked before the first write.
    expect(await all(`/v2/${target}/logs`)).toEqual([]);
    expect(await all(`/v2/${target}/transactions`)).toEqual([]);
  });

  it('continues a ledger in parts with after=<its last log id>: the same log as one import', async () => {
    const entries = lines(exported);
    const target = await fresh();
    const parts: Array<[string, unknown[]]> = [
      ['', entries.slice(0, 4)],
      ['?after=4', entries.slice(4, 7)],
      ['?after=7', entries.slice(7)],
    ];
    for (const [query, part] of parts) {
      const res = await call('POST', `/v2/${target}/logs/import${query}`, toText(part), OCTETS);
      expect(res.status, res.text).toBe(204);
    }
    const imported = await all(`/v2/${target}/logs`);
    expect(imported.map((l) => [l.id, l.hash])).toEqual(
      entries.map((e) => [BigInt(e.id), e.hash]).reverse(),
    );
  });

  it("refuses a continuation whose after is not the ledger's last log, or whose first log does not follow it", async () => {
    const entries = lines(exported);
    const target = await fresh();
    expect(
      (await call('POST', `/v2/${target}/logs/import`, toText(entries.slice(0, 3)), OCTETS)).status,
    ).toBe(204);
    const cases: Array<[string, unknown[], string]> = [
      [
        '?after=2',
        entries.slice(2),
        `ledger "${target}": its last log is 3, not 2: a part of the import is missing or something else wrote to the ledger`,
      ],
      [
        '?after=4',
        entries.slice(4),
        `ledger "${target}": its last log is 3, not 4: a part of the import is missing or something else wrote to the ledger`,
      ],
      [
        '?after=3',
        entries.slice(4),
        "log 5: expected log 4 here (ids start at the ledger's last + 1 and follow without gaps)",
      ],
      ['?after=x', entries.slice(3), 'after: must be a log id (an integer of at most 15 digits)'],
    ];
    for (const [query, part, message] of cases) {
      const res = await call('POST', `/v2/${target}/logs/import${query}`, toText(part), OCTETS);
      expect([res.status, res.body.errorMessage]).toEqual([400, message]);
    }
    expect((await all(`/v2/${target}/logs`)).map((l) => l.id)).toEqual([3n, 2n, 1n]);
  });

  it('refuses an entry whose chain is recomputed but which the ledger would not log so (replay check)', async () => {
    // A forger re-hashes the chain: the hashes hold, but the ledger decides transaction 2's id, not the file.
    const forged = lines(exported)
      .slice(0, 2)
      .map((e) => ({ ...e }));
    const tx = { ...(forged[1]!.data.transaction as Record<string, unknown>), id: 7 };
    forged[1] = { ...forged[1]!, data: { ...forged[1]!.data, transaction: tx } };
    let previous = '';
    for (const e of forged) {
      const { hash: _old, ...rest } = e;
      e.hash = logHash(previous, rest);
      previous = e.hash;
    }
    const target = await fresh();
    const res = await call('POST', `/v2/${target}/logs/import`, toText(forged), OCTETS);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe(
      'log 2: replaying it through the ledger gives different data (NEW_TRANSACTION)',
    );
    expect((await all(`/v2/${target}/logs`)).map((l) => l.id)).toEqual([1n]);
  });

  it('refuses malformed lines and gaps in the ids, naming where', async () => {
    const [first, second, third] = exported.split('\n');
    const cases: Array<[string, string]> = [
      [`${first}\n{not json\n${third}\n`, 'line 2: not a JSON object'],
      [
        `${first}\n{"id":2,"type":"NOPE","data":{},"date":"2026-01-01T00:00:00Z"}\n`,
        'line 2: type: must be a log type',
      ],
      [
        `${first}\n${third}\n`,
        'log 3: expected log 2 here (ids start at 1 and follow without gaps)',
      ],
      [`${second}\n`, 'log 2: expected log 1 here (ids start at 1 and follow without gaps)'],
    ];
    for (const [body, message] of cases) {
      const target = await fresh();
      const res = await call('POST', `/v2/${target}/logs/import`, body, OCTETS);
      expect([res.status, res.body]).toEqual([400, { errorCode: 'IMPORT', errorMessage: message }]);
      expect((await all(`/v2/${target}/logs`)).length).toBeLessThanOrEqual(1);
    }
  });

  it("a body over the platform's 1 MiB request limit is refused whole (413) before anything is read", async () => {
    const target = await fresh();
    const [first] = exported.split('\n');
    const res = await call(
      'POST',
      `/v2/${target}/logs/import`,
      `${first}\n${' '.repeat(1024 * 1024)}\n`,
      OCTETS,
    );
    expect([res.status, res.body.errorCode]).toEqual([413, 'VALIDATION']);
    expect(await all(`/v2/${target}/logs`)).toEqual([]);
  });

  it('reads lines across chunks, bounded in length', async () => {
    const chunks = async function* (...parts: string[]) {
      for (const p of parts) yield new TextEncoder().encode(p);
    };
    const read = async (max: number, ...parts: string[]) => {
      const out: Array<[number, string]> = [];
      for await (const { text, line } of bodyLines(chunks(...parts), max)) out.push([line, text]);
      return out;
    };
    expect(await read(10, 'ab', 'c\r\n\n', 'dé', 'f')).toEqual([
      [1, 'abc'],
      [3, 'déf'],
    ]);
    await expect(read(4, 'abcd\n', 'ab', 'cde\n')).rejects.toThrow('line 2: longer than 4 bytes');
    await expect(read(4, 'abcde')).rejects.toThrow('line 1: longer than 4 bytes');
  });

  it('an empty body imports nothing (204)', async () => {
    const target = await fresh();
    const res = await call('POST', `/v2/${target}/logs/import`, '', OCTETS);
    expect(res.status).toBe(204);
    expect(await all(`/v2/${target}/logs`)).toEqual([]);
  });
});

describe('log export and import through the official SDK', () => {
  let platform: RunningPlatform;
  let sdk: SDK;

  beforeAll(async () => {
    ({ platform, sdk } = await startSdkPlatform());
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('exportLogs answers the stream, importLogs takes it (204)', async () => {
    const run = `${Date.now() % 1_000_000}`;
    await sdk.ledger.v2.createLedger({ ledger: `sdkx-a-${run}`, v2CreateLedgerRequest: {} });
    await sdk.ledger.v2.createTransaction({
      ledger: `sdkx-a-${run}`,
      v2PostTransaction: {
        postings: [{ source: 'world', destination: 'x', amount: 42n, asset: 'USD' }],
        metadata: { m: '1' },
      },
    });
    const exported = await sdk.ledger.v2.exportLogs({ ledger: `sdkx-a-${run}` });
    // The SDK reads no body for this operation (its 200 is `M.nil`): the lines are read over plain HTTP below.
    expect([exported.statusCode, exported.contentType]).toEqual([200, 'application/octet-stream']);
    const raw = await fetch(`${platform.baseUrl}/api/ledger/v2/sdkx-a-${run}/logs/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await testClientToken(platform)}` },
    });
    const text = await raw.text();
    expect(text.split('\n')).toHaveLength(2);
    expect((parseJson(text.split('\n')[0]!) as LogEntry).type).toBe('NEW_TRANSACTION');

    await sdk.ledger.v2.createLedger({ ledger: `sdkx-b-${run}`, v2CreateLedgerRequest: {} });
    const imported = await sdk.ledger.v2.importLogs({
      ledger: `sdkx-b-${run}`,
      v2ImportLogsRequest: new TextEncoder().encode(text),
    });
    expect(imported.statusCode).toBe(204);
    const logs = await sdk.ledger.v2.listLogs({ ledger: `sdkx-b-${run}` });
    expect(logs.v2LogsCursorResponse?.cursor.data.map((l) => l.hash)).toEqual([
      (parseJson(text.split('\n')[0]!) as LogEntry).hash,
    ]);
  });
});
