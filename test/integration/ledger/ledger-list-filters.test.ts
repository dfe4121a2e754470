/**
 * The ledger list's `query` (#14): `$match` on bucket, name and metadata, `$like` on name, `$exists` on metadata,
 * combined with `$and`/`$or`/`$not`; pages stay bounded and cursors keep the filter.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerMatches, parseLedgerFilter } from '../../../lib/ledger/domain/ledger-filter.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const tag = `lf${Date.now() % 100000}`;
const q = (query: unknown) => `query=${encodeURIComponent(JSON.stringify(query))}`;
const names = (res: { body: { cursor: { data: Array<{ name: string }> } } }) =>
  res.body.cursor.data.map((l) => l.name);

beforeAll(async () => {
  // A table of its own: the ledger list spans every ledger of the table.
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  for (const [name, body] of [
    [`${tag}-eu-shop`, { bucket: 'eu', metadata: { team: 'shop', region: 'eu' } }],
    [`${tag}-eu-bank`, { bucket: 'eu', metadata: { team: 'bank' } }],
    [`${tag}-us-shop`, { bucket: 'us', metadata: { team: 'shop' } }],
    [`${tag}-plain`, {}],
  ] as const) {
    expect((await call('POST', `/v2/${name}`, body)).status).toBe(204);
  }
});

describe('ledger list filters', () => {
  it('match bucket, name, metadata; like on name; exists; and, or, not', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ $match: { bucket: 'eu' } }, [`${tag}-eu-shop`, `${tag}-eu-bank`]],
      [{ $match: { name: `${tag}-plain` } }, [`${tag}-plain`]],
      [{ $match: { 'metadata[team]': 'shop' } }, [`${tag}-eu-shop`, `${tag}-us-shop`]],
      [{ $like: { name: `${tag}-%-shop` } }, [`${tag}-eu-shop`, `${tag}-us-shop`]],
      [{ $like: { name: `${tag}-eu%` } }, [`${tag}-eu-shop`, `${tag}-eu-bank`]],
      [{ $exists: { metadata: 'region' } }, [`${tag}-eu-shop`]],
      [
        {
          $and: [{ $match: { bucket: 'eu' } }, { $not: { $match: { 'metadata[team]': 'shop' } } }],
        },
        [`${tag}-eu-bank`],
      ],
      [
        { $or: [{ $match: { bucket: 'us' } }, { $match: { name: `${tag}-plain` } }] },
        [`${tag}-us-shop`, `${tag}-plain`],
      ],
    ];
    for (const [query, expected] of cases) {
      const res = await call('GET', `/v2?pageSize=100&${q(query)}`);
      expect(res.status, res.text).toBe(200);
      expect(names(res), JSON.stringify(query)).toEqual(expected);
    }
  });

  it('pages a filtered list with cursors that keep the filter', async () => {
    const first = await call('GET', `/v2?pageSize=1&${q({ $like: { name: `${tag}-%` } })}`);
    const pages = [names(first)];
    let res = first;
    while (res.body.cursor.hasMore) {
      res = await call('GET', `/v2?cursor=${res.body.cursor.next}`);
      pages.push(names(res));
    }
    expect(pages.flat()).toEqual([
      `${tag}-eu-shop`,
      `${tag}-eu-bank`,
      `${tag}-us-shop`,
      `${tag}-plain`,
    ]);
  });

  it('refuses what it cannot read, clearly', async () => {
    for (const [query, message] of [
      [{ $match: { features: 'x' } }, 'unknown field'],
      [{ $lt: { name: 'a' } }, 'is not supported on ledgers'],
      [{ $like: { bucket: 'e%' } }, 'only on name'],
      [{ $and: [] }, 'non-empty array'],
      [{ $match: { name: 5 } }, 'must be a string'],
    ] as const) {
      const res = await call('GET', `/v2?${q(query)}`);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.errorMessage).toContain(message);
    }
    let deep: unknown = { $match: { name: 'x' } };
    for (let i = 0; i < 12; i++) deep = { $not: deep };
    expect((await call('GET', `/v2?${q(deep)}`)).body.errorMessage).toContain(
      'nested more than 8 deep',
    );
  });

  it('matches like patterns without backtracking', () => {
    const like = (pattern: string, name: string) =>
      ledgerMatches(parseLedgerFilter(JSON.stringify({ $like: { name: pattern } }))!, {
        name,
        bucket: 'b',
        metadata: {},
      });
    expect([
      like('a%c', 'abc'),
      like('a%c', 'ac'),
      like('a%c', 'ab'),
      like('%', ''),
      like('a%b%c', 'aXbYc'),
      like('a%b%c', 'acb'),
      like('abc', 'abc'),
      like('ab', 'abc'),
    ]).toEqual([true, true, false, true, true, false, true, false]);
    // A pattern that makes a backtracking matcher explode: answered (linear scan), and correctly.
    expect(like(`${'%a'.repeat(200)}%b`, 'a'.repeat(4000))).toBe(false);
  });
});
