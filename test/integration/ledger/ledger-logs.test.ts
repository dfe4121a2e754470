import { beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../../lib/ledger/domain/log-chain.js';
import { type LogEntry, logHash } from '../../../lib/ledger/domain/logs.js';
import { encodeCursor } from '../../../lib/pagination/cursor.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, stringify } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const MAX = 10n ** 38n - 1n;
const T1 = '2026-01-02T03:04:05Z';
const T2 = '2026-01-02T03:04:06.5Z';
const T3 = '2026-01-02T03:04:07Z';
const send = (source: string, destination: string, amount: bigint, asset = 'USD/2') => ({
  source,
  destination,
  amount,
  asset,
});
/** The transaction as logged: no volumes; ids as numbers, amounts as big integers. */
const logged = (
  id: number,
  postings: unknown[],
  date: string,
  metadata: Record<string, string> = {},
) => ({
  id,
  postings,
  metadata,
  timestamp: date,
  insertedAt: date,
  updatedAt: date,
  reverted: false,
});

describe('GET /v2/<ledger>/logs', () => {
  let runtime: ServiceRuntime;
  let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
  let clock = 0;
  let ledger: string;
  /** The ledger's log, newest first, as the API must list it. */
  let expected: LogEntry[] = [];

  beforeAll(async () => {
    ({ runtime } = await testTables());
    ({ call } = await ledgerClient(runtime, { now: () => clock }));
    ledger = `logs-${Date.now() % 100000}`;
    expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
    const steps: Array<[string, unknown, Record<string, string>]> = [
      [T1, { postings: [send('world', 'a', 100n)] }, {}],
      [
        T2,
        { postings: [send('world', 'b', MAX, 'COIN')], accountMetadata: { b: { kind: 'vault' } } },
        { 'Idempotency-Key': 'ik-2' },
      ],
      [T3, { postings: [send('a', 'b', 30n)], metadata: { note: 'x' } }, {}],
    ];
    for (const [date, body, headers] of steps) {
      clock = Date.parse(date);
      const res = await call('POST', `/v2/${ledger}/transactions`, body, headers);
      expect(res.status, res.text).toBe(200);
    }
    const entries: Array<Omit<LogEntry, 'hash'>> = [
      {
        id: 1,
        type: 'NEW_TRANSACTION',
        data: { transaction: logged(1, [send('world', 'a', 100n)], T1), accountMetadata: {} },
        date: T1,
        idempotencyKey: '',
      },
      {
        id: 2,
        type: 'NEW_TRANSACTION',
        data: {
          transaction: logged(2, [send('world', 'b', MAX, 'COIN')], T2),
          accountMetadata: { b: { kind: 'vault' } },
        },
        date: T2,
        idempotencyKey: 'ik-2',
      },
      {
        id: 3,
        type: 'NEW_TRANSACTION',
        data: {
          transaction: logged(3, [send('a', 'b', 30n)], T3, { note: 'x' }),
          accountMetadata: {},
        },
        date: T3,
        idempotencyKey: '',
      },
    ];
    let previous = '';
    expected = entries
      .map(({ id, type, data, date, idempotencyKey }) => {
        previous = logHash(previous, { id, type, data, date, idempotencyKey });
        // The contract's field order, so the whole response text can be compared.
        return { id, type, data, date, hash: previous, idempotencyKey };
      })
      .reverse();
  });

  it('lists every entry newest first, exactly, with the chained hashes', async () => {
    const res = await call('GET', `/v2/${ledger}/logs`);
    expect(res.status).toBe(200);
    // Ids (of the log and of the transactions inside) come back as numbers; the client parses them as bigint.
    expect(res.text).toBe(stringify({ cursor: { pageSize: 15, hasMore: false, data: expected } }));
    expect(res.text).toContain(`"amount":${MAX}`);
    const ascending = (res.body.cursor.data as Array<Record<string, unknown>>)
      .map((l) => ({ ...l, id: Number(l.id) }) as LogEntry)
      .reverse();
    expect(verifyChain(ascending)).toEqual({ ok: true, checked: 3 });
  });

  it('writes amounts, but not ids, as strings on request', async () => {
    const res = await call('GET', `/v2/${ledger}/logs?pageSize=1`, undefined, {
      'Formance-Bigint-As-String': 'true',
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      '"data":{"transaction":{"id":3,"postings":[{"source":"a","destination":"b","amount":"30","asset":"USD/2"}]',
    );
    expect(res.text).toContain('{"id":3,"type":"NEW_TRANSACTION"');
  });

  it('pages with cursors both ways', async () => {
    const first = await call('GET', `/v2/${ledger}/logs?pageSize=2`);
    expect(first.body.cursor.data.map((l: { id: bigint }) => l.id)).toEqual([3n, 2n]);
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await call('GET', `/v2/${ledger}/logs?cursor=${first.body.cursor.next}`);
    expect(second.body.cursor.data.map((l: { id: bigint }) => l.id)).toEqual([1n]);
    expect(second.body.cursor.hasMore).toBe(false);
    const back = await call('GET', `/v2/${ledger}/logs?cursor=${second.body.cursor.previous}`);
    expect(back.body.cursor.data.map((l: { id: bigint }) => l.id)).toEqual([3n, 2n]);
  });

  it('refuses unknown parameters, foreign and forged cursors; LEDGER_NOT_FOUND for an unknown ledger', async () => {
    const cases: Array<[string, string]> = [
      ['reverse=true', 'reverse: unknown query parameter'],
      ['pageSize=abc', 'pageSize: must be a positive integer'],
      [
        `cursor=${encodeCursor({ l: 'ledger.logs.other', p: 2, d: 'n', k: { pk: 'E#default#L#other#LOG', sk: '000000000000002' } })}`,
        'cursor: not a cursor of this list',
      ],
      [
        `cursor=${encodeCursor({ l: `ledger.logs.${ledger}`, p: 2, d: 'n', k: { pk: 'E#default#L#other#LOG', sk: '000000000000002' } })}`,
        'cursor: not a cursor of this list',
      ],
      [
        `cursor=${encodeCursor({ l: `ledger.logs.${ledger}`, p: 2, d: 'n', k: { pk: `E#default#L#${ledger}#LOG`, sk: 'HEAD' } })}`,
        'cursor: not a cursor of this list',
      ],
      ['cursor=%%%', 'cursor: malformed'],
    ];
    for (const [query, message] of cases) {
      const res = await call('GET', `/v2/${ledger}/logs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    const forged = encodeCursor({
      l: `ledger.logs.${ledger}`,
      p: 5,
      d: 'n',
      k: { pk: `E#default#L#${ledger}#LOG`, sk: '000000000000003' },
    });
    expect(
      (await call('GET', `/v2/${ledger}/logs?cursor=${forged}`)).body.cursor.data.map(
        (l: { id: bigint }) => l.id,
      ),
    ).toEqual([2n, 1n]);
    const missing = await call('GET', '/v2/no-such-ledger/logs');
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('LEDGER_NOT_FOUND');
  });

  it('lists an empty log of a new ledger', async () => {
    const empty = `empty-${Date.now() % 100000}`;
    expect((await call('POST', `/v2/${empty}`)).status).toBe(204);
    expect((await call('GET', `/v2/${empty}/logs`)).body).toEqual({
      cursor: { pageSize: 15n, hasMore: false, data: [] },
    });
  });
});
