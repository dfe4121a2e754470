/** What the write engine's unit tests share: a ledger record and a one-posting create. Tests only. */
import type { LedgerOperation } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import { DEFAULT_FEATURES } from '../domain/features.js';

export const testLedger = (name: string): LedgerRecord => ({
  environment: 'default',
  id: 1,
  name,
  bucket: '_default',
  metadata: {},
  features: { ...DEFAULT_FEATURES },
  addedAt: '2026-01-01T00:00:00Z',
});

export const createOne = (
  source: string,
  destination: string,
  amount: bigint,
): LedgerOperation => ({
  kind: 'create',
  input: { postings: [{ source, destination, amount, asset: 'USD' }] },
  options: { dryRun: false, force: false },
});
