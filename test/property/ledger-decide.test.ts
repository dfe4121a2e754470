/**
 * The decide step alone, without DynamoDB (the write-path issue's "property tests of the decide step"): sequences
 * of create-transaction and revert decisions run against an in-memory ledger state, as a sequenced writer runs a
 * batch. Checked after every step: the sum of every asset's balances is zero; no account but `world` is below
 * zero unless a forced transaction took it there; a decision is refused exactly when an independent model of
 * the in-order overdraft rule refuses it; ids follow without a gap. And a batch decided against one state
 * advanced in memory gives exactly the decisions made one by one, each against a state rebuilt from the changes
 * committed before it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InsufficientFundError, PlatformError } from '../../lib/errors/index.js';
import { createTransactionWrite } from '../../lib/ledger/commands/create-transaction.js';
import { revertTransactionWrite } from '../../lib/ledger/commands/revert-transaction.js';
import type { LedgerChange, LedgerRecord, WriteRequest } from '../../lib/ledger/domain/change.js';
import { DEFAULT_FEATURES } from '../../lib/ledger/domain/features.js';
import { MemoryLedgerState } from '../../lib/ledger/domain/memory-state.js';
import { instantFromMs } from '../../lib/time/instant.js';

const LEDGER: LedgerRecord = {
  environment: 'default',
  id: 1,
  name: 'prop',
  bucket: '_default',
  metadata: {},
  features: DEFAULT_FEATURES,
  addedAt: '2026-01-01T00:00:00Z',
};
const ACCOUNTS = ['world', 'a', 'b', 'c'];
const ASSETS = ['USD/2', 'EUR'];
const NOW = instantFromMs(Date.parse('2026-11-24T00:00:00Z'));

type Posting = { source: string; destination: string; amount: bigint; asset: string };
type Step =
  | { kind: 'create'; postings: Posting[]; force: boolean }
  | { kind: 'revert'; target: number; force: boolean };

const postingArb = fc.record({
  source: fc.oneof(
    { weight: 1, arbitrary: fc.constant('world') },
    { weight: 3, arbitrary: fc.constantFrom(...ACCOUNTS) },
  ),
  destination: fc.constantFrom(...ACCOUNTS),
  amount: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 40n }), fc.constant(10n ** 37n)),
  asset: fc.constantFrom(...ASSETS),
});
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      postings: fc.array(postingArb, { minLength: 1, maxLength: 4 }),
      force: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('revert' as const),
      target: fc.integer({ min: 1, max: 30 }),
      force: fc.boolean(),
    }),
  },
);

function request(step: Step, state: MemoryLedgerState): WriteRequest<unknown> {
  if (step.kind === 'create')
    return createTransactionWrite(
      LEDGER,
      { postings: step.postings },
      { dryRun: false, force: step.force },
    );
  return revertTransactionWrite(
    LEDGER,
    step.target,
    state.transaction(step.target)?.tx,
    {},
    { force: step.force, atEffectiveDate: false, dryRun: false },
  );
}

/** Decides one step against a state; the change, or the refusal's error code. */
function decide(
  step: Step,
  state: MemoryLedgerState,
): { change: LedgerChange } | { refused: string } {
  try {
    return { change: request(step, state).decide(state, { now: NOW }).change };
  } catch (err) {
    if (err instanceof PlatformError) return { refused: err.constructor.name };
    throw err;
  }
}

/** The in-order overdraft rule, independently: postings apply one by one; a debited non-world account must stay ≥ 0. */
function modelRefuses(
  postings: readonly Posting[],
  balances: Map<string, bigint>,
  force: boolean,
): boolean {
  const work = new Map(balances);
  for (const p of postings) {
    const source = `${p.source}/${p.asset}`;
    work.set(source, (work.get(source) ?? 0n) - p.amount);
    work.set(
      `${p.destination}/${p.asset}`,
      (work.get(`${p.destination}/${p.asset}`) ?? 0n) + p.amount,
    );
    if (p.amount > 0n && p.source !== 'world' && !force && work.get(source)! < 0n) return true;
  }
  return false;
}

describe('ledger decisions over an in-memory state', () => {
  it('keep every asset summing to zero, follow the in-order overdraft rule, and take ids without a gap', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => {
        const state = new MemoryLedgerState();
        const balances = new Map<string, bigint>();
        const forced = new Set<string>();
        for (const step of steps) {
          const postings =
            step.kind === 'create'
              ? step.postings
              : state
                  .transaction(step.target)
                  ?.tx.postings.map((p) => ({ ...p, source: p.destination, destination: p.source }))
                  .reverse();
          const outcome = decide(step, state);
          if ('refused' in outcome) {
            if (
              postings &&
              !(step.kind === 'revert' && state.transaction(step.target)?.tx.reverted)
            ) {
              expect(outcome.refused === InsufficientFundError.name).toBe(
                modelRefuses(postings, balances, step.force),
              );
            }
            continue;
          }
          expect(modelRefuses(postings!, balances, step.force)).toBe(false);
          const before = state.head.lastTxId;
          state.apply(outcome.change);
          expect(state.head.lastTxId).toBe(before + 1);
          for (const p of postings!) {
            balances.set(
              `${p.source}/${p.asset}`,
              (balances.get(`${p.source}/${p.asset}`) ?? 0n) - p.amount,
            );
            balances.set(
              `${p.destination}/${p.asset}`,
              (balances.get(`${p.destination}/${p.asset}`) ?? 0n) + p.amount,
            );
            if (step.force) forced.add(`${p.source}/${p.asset}`);
          }
        }
        const sums = new Map<string, bigint>();
        for (const { account, asset, volume } of state.allVolumes()) {
          const balance = volume.input - volume.output;
          expect(balance).toBe(balances.get(`${account}/${asset}`) ?? 0n);
          sums.set(asset, (sums.get(asset) ?? 0n) + balance);
          if (account !== 'world' && !forced.has(`${account}/${asset}`))
            expect(balance >= 0n).toBe(true);
        }
        for (const sum of sums.values()) expect(sum).toBe(0n);
      }),
      { numRuns: 300 },
    );
  });

  it('decide a batch in memory exactly as one by one against states rebuilt from the committed changes', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), (steps) => {
        // Batch: one state, advanced by each accepted decision (a rejected one changes nothing).
        const batch = new MemoryLedgerState();
        const batched = steps.map((step) => {
          const outcome = decide(step, batch);
          if ('change' in outcome) batch.apply(outcome.change);
          return outcome;
        });
        // Sequential: each decision against a fresh state replaying only what was committed before it.
        const committed: LedgerChange[] = [];
        const sequential = steps.map((step) => {
          const snapshot = new MemoryLedgerState();
          for (const change of committed) snapshot.apply(change);
          const outcome = decide(step, snapshot);
          if ('change' in outcome) committed.push(outcome.change);
          return outcome;
        });
        expect(batched).toEqual(sequential);
      }),
      { numRuns: 200 },
    );
  });
});
