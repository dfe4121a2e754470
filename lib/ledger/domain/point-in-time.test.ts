import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors/index.js';
import { resolveFeatures } from './features.js';
import {
  accountMetadataAt,
  atOrBefore,
  metadataAt,
  readPointInTime,
  readTransactionOrder,
  requireVolumesAt,
  transactionAt,
} from './point-in-time.js';
import type { Transaction } from './transaction.js';

const pit = readPointInTime('2026-03-01T00:00:00Z')!;

describe('point-in-time parameters', () => {
  it('reads pit as a sortable instant (offsets normalised, microseconds kept); absent or empty is none', () => {
    expect(pit).toBe('2026-03-01T00:00:00.000000Z');
    expect(readPointInTime('2026-03-01T01:00:00.1234567+01:00')).toBe(
      '2026-03-01T00:00:00.123456Z',
    );
    expect(readPointInTime(undefined)).toBeUndefined();
    expect(readPointInTime('')).toBeUndefined();
    expect(() => readPointInTime('2026-03-01')).toThrow(ValidationError);
    expect(() => readPointInTime('2026-03-01T00:00:00Z', 'endTime')).not.toThrow();
  });

  it('reads order: by id unless "effective"; anything else is refused', () => {
    expect(readTransactionOrder(undefined)).toBe('id');
    expect(readTransactionOrder('')).toBe('id');
    expect(readTransactionOrder('effective')).toBe('effective');
    expect(() => readTransactionOrder('Effective')).toThrow(
      'order: must be "effective" (the default order is by id)',
    );
  });

  it('compares stored dates with a point in time, inclusively, whatever their precision', () => {
    expect(atOrBefore('2026-03-01T00:00:00Z', pit)).toBe(true);
    expect(atOrBefore('2026-03-01T00:00:00.000001Z', pit)).toBe(false);
    expect(atOrBefore('2026-02-28T23:59:59.9Z', pit)).toBe(true);
  });
});

describe('metadata at a point in time', () => {
  const current = { now: 'yes' };

  it('is the revision at or before it, else what the oldest later revision replaced, else the current one', () => {
    // biome-ignore lint/suspicious/noThenProperty: a caller's metadata key named `then` is data like any other
    expect(metadataAt(current, { atOrBefore: { then: 'yes' } })).toEqual({ then: 'yes' });
    expect(metadataAt(current, { earliestAfter: { before: { created: 'yes' } } })).toEqual({
      created: 'yes',
    });
    expect(metadataAt(current, {})).toEqual(current);
    // A revision written before `before` was stored: unknown, shown as none.
    expect(metadataAt(current, { earliestAfter: {} })).toEqual({});
  });

  it('of an account is none before the account was written', () => {
    const account = { insertionDate: '2026-03-02T00:00:00Z', metadata: current };
    expect(accountMetadataAt(account, pit, {})).toEqual({});
    expect(
      accountMetadataAt({ ...account, insertionDate: '2026-02-01T00:00:00Z' }, pit, {}),
    ).toEqual(current);
  });
});

describe('a transaction at a point in time', () => {
  const tx: Transaction = {
    id: 1,
    postings: [],
    metadata: {},
    timestamp: '2026-01-01T00:00:00Z',
    insertedAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-03-05T00:00:00Z',
    reverted: true,
    revertedAt: '2026-03-05T00:00:00Z',
  };

  it('is reverted only by a revert written by then, with the metadata given', () => {
    const before = transactionAt(tx, pit, { m: '1' });
    expect(before.reverted).toBe(false);
    expect(before).not.toHaveProperty('revertedAt');
    expect(before.metadata).toEqual({ m: '1' });
    const after = transactionAt(tx, readPointInTime('2026-03-05T00:00:00Z')!, {});
    expect(after).toMatchObject({ reverted: true, revertedAt: '2026-03-05T00:00:00Z' });
  });
});

describe('what a point-in-time read refuses', () => {
  const _noHistory = resolveFeatures({
    TRANSACTION_METADATA_HISTORY: 'DISABLED',
    ACCOUNT_METADATA_HISTORY: 'DISABLED',
  });

  it('names the feature volumes at a point in time need on each clock', () => {
    expect(() => requireVolumesAt('insertion', resolveFeatures({ MOVES_HISTORY: 'OFF' }))).toThrow(
      'missing feature "MOVES_HISTORY"',
    );
    expect(() =>
      requireVolumesAt(
        'insertion',
        resolveFeatures({ MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED' }),
      ),
    ).not.toThrow();
    expect(() =>
      requireVolumesAt(
        'effective',
        resolveFeatures({ MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES: 'DISABLED' }),
      ),
    ).toThrow('missing feature "MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES"');
  });
});
