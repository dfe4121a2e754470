import { describe, expect, it } from 'vitest';
import type { Account } from './account.js';
import { aggregateBalances, applyReading } from './balance.js';
import { connectorId, parseConnectorId } from './connectors/connector.js';
import { formatDuration, parseDuration } from './connectors/duration.js';
import { compilePoolQuery } from './pool-query.js';

const account = (over: Partial<Account>): Account => ({
  id: 'a1',
  connectorID: 'c1',
  provider: 'c1',
  reference: 'r1',
  createdAt: '2026-01-01T00:00:00Z',
  type: 'INTERNAL',
  metadata: {},
  raw: {},
  ...over,
});

describe('balance periods', () => {
  const first = { accountID: 'a', asset: 'EUR/2', balance: 10n, at: '2026-01-01T10:00:00Z' };
  it('opens, extends, ignores a stale reading, and opens again on a new amount', () => {
    const opened = applyReading(undefined, first);
    expect(opened).toEqual({
      kind: 'open',
      period: {
        accountID: 'a',
        asset: 'EUR/2',
        balance: 10n,
        createdAt: first.at,
        lastUpdatedAt: first.at,
      },
    });
    const period = opened.kind === 'open' ? opened.period : undefined;
    expect(applyReading(period, { ...first, at: '2026-01-01T11:00:00.5Z' })).toEqual({
      kind: 'extend',
      period: { ...period, lastUpdatedAt: '2026-01-01T11:00:00.5Z' },
    });
    expect(applyReading(period, { ...first, at: '2026-01-01T10:00:00.000Z' })).toEqual({
      kind: 'stale',
    });
    expect(
      applyReading(period, { ...first, balance: -3n, at: '2026-01-01T12:00:00Z' }),
    ).toMatchObject({
      kind: 'open',
      period: { balance: -3n, createdAt: '2026-01-01T12:00:00Z' },
    });
  });

  it('aggregates by asset, in asset order, naming each account once', () => {
    const b = (accountID: string, asset: string, balance: bigint) => ({
      accountID,
      asset,
      balance,
      createdAt: 'x',
      lastUpdatedAt: 'x',
    });
    expect(
      aggregateBalances([b('a', 'USD/2', 5n), b('b', 'EUR/2', 7n), b('a', 'EUR/2', -2n)]),
    ).toEqual([
      { asset: 'EUR/2', amount: 5n, relatedAccounts: ['b', 'a'] },
      { asset: 'USD/2', amount: 5n, relatedAccounts: ['a'] },
    ]);
  });
});

describe('pool queries', () => {
  it('matches fields and metadata, combined with $and, $or and $not', () => {
    const q = compilePoolQuery({
      $or: [
        {
          $and: [
            { $match: { 'metadata[team]': 'ops' } },
            { $not: { $match: { type: 'EXTERNAL' } } },
          ],
        },
        { $match: { reference: 'vip' } },
      ],
    });
    expect(q(account({ metadata: { team: 'ops' } }))).toBe(true);
    expect(q(account({ metadata: { team: 'ops' }, type: 'EXTERNAL' }))).toBe(false);
    expect(q(account({ reference: 'vip', type: 'EXTERNAL' }))).toBe(true);
    expect(q(account({ metadata: { team: 'dev' } }))).toBe(false);
  });

  it('refuses what it cannot evaluate, naming why', () => {
    expect(() => compilePoolQuery({ $match: { colour: 'red' } })).toThrow(
      "query: unknown key 'colour'",
    );
    expect(() => compilePoolQuery({ $like: { name: 'x' } })).toThrow(
      'query: unknown operator $like',
    );
    expect(() => compilePoolQuery({ $and: [] })).toThrow(
      'query: $and takes a non-empty list of clauses',
    );
    expect(() => compilePoolQuery({ $match: { name: 1 } })).toThrow('must be a string');
  });
});

describe('connector ids and durations', () => {
  it("writes the reference's connector ids and reads them back", () => {
    const id = connectorId('generic', '8a3e1c52-0d1f-4b7e-9c3a-2f6d5b4a1e90');
    expect(Buffer.from(id, 'base64url').toString()).toBe(
      '{"Provider":"generic","Reference":"8a3e1c52-0d1f-4b7e-9c3a-2f6d5b4a1e90"}',
    );
    expect(parseConnectorId(id)).toEqual({
      provider: 'generic',
      reference: '8a3e1c52-0d1f-4b7e-9c3a-2f6d5b4a1e90',
    });
    expect(parseConnectorId('bank-1')).toBeUndefined();
  });

  it('parses and writes Go-style durations', () => {
    expect(parseDuration('1h30m', 'p')).toBe(5_400_000);
    expect(parseDuration('90s', 'p')).toBe(90_000);
    expect(parseDuration('1.5m', 'p')).toBe(90_000);
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(90_500)).toBe('1m30s500ms');
    expect(() => parseDuration('30 minutes', 'body.pollingPeriod')).toThrow(
      'body.pollingPeriod: must be a duration such as 30m, 1h or 90s',
    );
  });
});
