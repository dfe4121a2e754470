import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors/index.js';
import {
  type AccountRecord,
  accountView,
  addBalances,
  balancesView,
  readAccountExpand,
} from './account.js';
import { DEFAULT_FEATURES, resolveFeatures } from './features.js';

const account: AccountRecord = {
  address: 'users:1',
  metadata: { kind: 'user' },
  firstUsage: '2026-01-02T03:04:05Z',
  insertionDate: '2026-01-02T03:04:06Z',
  updatedAt: '2026-01-02T03:04:07Z',
  assets: ['EUR/2', 'USD/2'],
};

describe('accountView', () => {
  it('gives the contract fields in order, volumes only when given, never the stored assets list', () => {
    expect(Object.keys(accountView(account))).toEqual([
      'address',
      'metadata',
      'firstUsage',
      'insertionDate',
      'updatedAt',
    ]);
    const volumes = { 'USD/2': { input: 100n, output: 30n, balance: 70n } };
    expect(accountView(account, volumes)).toEqual({
      address: 'users:1',
      metadata: { kind: 'user' },
      firstUsage: '2026-01-02T03:04:05Z',
      insertionDate: '2026-01-02T03:04:06Z',
      updatedAt: '2026-01-02T03:04:07Z',
      volumes,
    });
  });
});

describe('readAccountExpand', () => {
  const off = resolveFeatures({ MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED' });
  it('reads volumes and effectiveVolumes from a comma-separated list, and nothing from an empty one', () => {
    expect(readAccountExpand(undefined, DEFAULT_FEATURES)).toEqual({
      volumes: false,
      effectiveVolumes: false,
    });
    expect(readAccountExpand('', DEFAULT_FEATURES)).toEqual({
      volumes: false,
      effectiveVolumes: false,
    });
    expect(readAccountExpand('volumes', off)).toEqual({ volumes: true, effectiveVolumes: false });
    expect(readAccountExpand(' volumes , effectiveVolumes,', DEFAULT_FEATURES)).toEqual({
      volumes: true,
      effectiveVolumes: true,
    });
  });

  it('refuses effectiveVolumes without its features, and unknown values', () => {
    expect(() => readAccountExpand('volumes,effectiveVolumes', off)).toThrow(
      new ValidationError('missing feature "MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES"'),
    );
    expect(() =>
      readAccountExpand('effectiveVolumes', resolveFeatures({ MOVES_HISTORY: 'OFF' })),
    ).toThrow(new ValidationError('missing feature "MOVES_HISTORY"'));
    expect(() => readAccountExpand('balances', DEFAULT_FEATURES)).toThrow(
      new ValidationError(
        'expand: "balances" is not supported (supported: volumes, effectiveVolumes)',
      ),
    );
    expect(() => readAccountExpand('Volumes', DEFAULT_FEATURES)).toThrow(ValidationError);
  });
});

describe('addBalances and balancesView', () => {
  it('sums exactly past 38 digits, keeps negative balances, and sorts assets', () => {
    const max = 10n ** 38n - 1n;
    const sums = addBalances(new Map(), [
      { asset: 'USD/2', balance: max },
      { asset: 'EUR', balance: -5n },
      { asset: 'USD/2', balance: max },
    ]);
    addBalances(sums, [
      { asset: 'COIN', balance: 0n },
      { asset: 'EUR', balance: 2n },
    ]);
    const view = balancesView(sums);
    expect(view).toEqual({ COIN: 0n, EUR: -3n, 'USD/2': 2n * max });
    expect(Object.keys(view)).toEqual(['COIN', 'EUR', 'USD/2']);
    expect(balancesView(new Map())).toEqual({});
  });
});
