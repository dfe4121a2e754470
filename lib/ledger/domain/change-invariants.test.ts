import { describe, expect, it } from 'vitest';
import { decideRequests } from '../store/decide-batch.js';
import type { LedgerChange } from './change.js';
import { assertBalanced, assertFollows, InvariantViolation } from './change-invariants.js';
import { DEFAULT_FEATURES } from './features.js';

const change = (volumes: LedgerChange['volumes']): LedgerChange => ({
  log: { type: 'NEW_TRANSACTION', data: {} },
  transactions: [],
  volumes,
  moves: [],
  accounts: [],
  references: [],
  accountsAdded: 0,
});
const before = new Map([['alice/USD', { input: 100n, output: 10n }]]);
const read = (account: string, asset: string) => before.get(`${account}/${asset}`);
const head = (lastTxId: number, lastLogId: number) => ({
  lastTxId,
  lastLogId,
  lastHash: '',
  accounts: 0,
});

describe('money-path assertions', () => {
  it('accepts a change whose volume deltas sum to zero per asset, and refuses one that creates or loses money', () => {
    // alice sends 5 USD to bob (new), and world sends 7 EUR to bob.
    const balanced = change([
      { account: 'alice', asset: 'USD', volume: { input: 100n, output: 15n } },
      { account: 'bob', asset: 'USD', volume: { input: 5n, output: 0n } },
      { account: 'world', asset: 'EUR', volume: { input: 0n, output: 7n } },
      { account: 'bob', asset: 'EUR', volume: { input: 7n, output: 0n } },
    ]);
    expect(() => assertBalanced(balanced, read)).not.toThrow();
    const minted = change([
      { account: 'alice', asset: 'USD', volume: { input: 100n, output: 15n } },
      { account: 'bob', asset: 'USD', volume: { input: 6n, output: 0n } },
    ]);
    expect(() => assertBalanced(minted, read)).toThrow(
      new InvariantViolation('the volume deltas of USD sum to 1, not 0'),
    );
  });

  it('refuses log or transaction ids that do not follow HEAD without a gap', () => {
    expect(() => assertFollows(head(4, 9), [10, 11], head(5, 11), [5])).not.toThrow();
    expect(() => assertFollows(head(4, 9), [10, 12], head(5, 12), [5])).toThrow(
      'log id 12 does not follow 10',
    );
    expect(() => assertFollows(head(4, 9), [10], head(4, 11), [])).toThrow(
      'HEAD ends at log 11, not 10',
    );
    expect(() => assertFollows(head(4, 9), [10, 11], head(7, 11), [5, 7])).toThrow(
      'transaction id 7 does not follow 5',
    );
  });
});

describe('the commit path', () => {
  it('stops a batch whose decision would mint money, before anything is written', () => {
    const ledger = {
      environment: 'default',
      id: 1,
      name: 'inv',
      bucket: '_default',
      metadata: {},
      features: DEFAULT_FEATURES,
      addedAt: '2026-01-01T00:00:00Z',
    };
    const minting = {
      ledger,
      reads: {},
      decide: () => ({
        result: {},
        change: {
          ...change([{ account: 'bob', asset: 'USD', volume: { input: 5n, output: 0n } }]),
          lastTxId: 1,
        },
      }),
    };
    const view = new Map<string, Record<string, unknown>>();
    expect(() =>
      decideRequests(
        { ledger, table: 't', nowMs: 0 },
        view,
        { ...head(0, 0), version: 1 },
        undefined,
        [minting],
      ),
    ).toThrow(InvariantViolation);
    expect(view.size).toBe(0);
  });
});
