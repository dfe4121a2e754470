/**
 * Balance preconditions (`expect`) in the pure decision, against an independent model: sequences of forced
 * transactions carrying random expectations (before or after, on balance, input or output, on touched pairs or
 * not) decided one after another on an in-memory ledger state, as a batch of the group commit is. A decision is
 * refused with PRECONDITION_FAILED exactly when the model says one of its expectations fails on the volumes just
 * before it (or those it would leave), the message names exactly the failed ones, and a refusal changes nothing:
 * the state after every step equals the model's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PreconditionFailedError } from '../../lib/errors/index.js';
import { createTransactionWrite } from '../../lib/ledger/commands/create-transaction.js';
import type { LedgerRecord } from '../../lib/ledger/domain/change.js';
import type { Comparator, Expectation } from '../../lib/ledger/domain/expectations.js';
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
const ACCOUNTS = ['world', 'a', 'b'];
const ASSETS = ['USD', 'EUR'];
const NOW = instantFromMs(Date.parse('2026-11-28T00:00:00Z'));
const OPS: Record<Comparator, (x: bigint, y: bigint) => boolean> = {
  $eq: (x, y) => x === y,
  $ne: (x, y) => x !== y,
  $gt: (x, y) => x > y,
  $gte: (x, y) => x >= y,
  $lt: (x, y) => x < y,
  $lte: (x, y) => x <= y,
};

type Posting = { source: string; destination: string; amount: bigint; asset: string };
type Volumes = Map<string, { input: bigint; output: bigint }>;

const postingArb = fc.record({
  source: fc.constantFrom(...ACCOUNTS),
  destination: fc.constantFrom(...ACCOUNTS),
  amount: fc.bigInt({ min: 0n, max: 5n }),
  asset: fc.constantFrom(...ASSETS),
});
// Small bounds around the small balances the steps make, so expectations hold about half the time.
const comparisonsArb = fc
  .dictionary(
    fc.constantFrom<Comparator>('$eq', '$ne', '$gt', '$gte', '$lt', '$lte'),
    fc.bigInt({ min: -6n, max: 6n }),
    { minKeys: 1, maxKeys: 2 },
  )
  .map((d) => d as Partial<Record<Comparator, bigint>>);
const expectationArb: fc.Arbitrary<Expectation> = fc
  .record(
    {
      account: fc.constantFrom(...ACCOUNTS),
      asset: fc.constantFrom(...ASSETS),
      at: fc.constantFrom<'before' | 'after'>('before', 'after'),
      balance: comparisonsArb,
      input: comparisonsArb,
      output: comparisonsArb,
    },
    { requiredKeys: ['account', 'asset'] },
  )
  .filter((e) => e.balance !== undefined || e.input !== undefined || e.output !== undefined);
const stepArb = fc.record({
  postings: fc.array(postingArb, { minLength: 1, maxLength: 3 }),
  expect: fc.array(expectationArb, { maxLength: 3 }),
});

const id = (account: string, asset: string) => `${account}\u0000${asset}`;

function applied(volumes: Volumes, postings: readonly Posting[]): Volumes {
  const next: Volumes = new Map([...volumes].map(([k, v]) => [k, { ...v }]));
  for (const p of postings) {
    const source = next.get(id(p.source, p.asset)) ?? { input: 0n, output: 0n };
    next.set(id(p.source, p.asset), { ...source, output: source.output + p.amount });
    const destination = next.get(id(p.destination, p.asset)) ?? { input: 0n, output: 0n };
    next.set(id(p.destination, p.asset), { ...destination, input: destination.input + p.amount });
  }
  return next;
}

/** The indexes of the expectations the model says fail. */
function modelFailures(expectations: readonly Expectation[], before: Volumes, after: Volumes) {
  return expectations.flatMap((e, index) => {
    const v = (e.at === 'after' ? after : before).get(id(e.account, e.asset)) ?? {
      input: 0n,
      output: 0n,
    };
    const values = { balance: v.input - v.output, input: v.input, output: v.output };
    const failed = (['balance', 'input', 'output'] as const).some((field) =>
      Object.entries(e[field] ?? {}).some(
        ([op, bound]) => !OPS[op as Comparator](values[field], bound as bigint),
      ),
    );
    return failed ? [index] : [];
  });
}

describe('balance preconditions in the decision', () => {
  it('refuse exactly when the model says, name the failed ones, and change nothing when they refuse', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), (steps) => {
        const state = new MemoryLedgerState();
        let model: Volumes = new Map();
        let committed = 0;
        for (const step of steps) {
          const after = applied(model, step.postings);
          const failures = modelFailures(step.expect, model, after);
          const request = createTransactionWrite(
            LEDGER,
            { postings: step.postings, expect: step.expect },
            { dryRun: false, force: true },
          );
          // Every pair an expectation names is read, touched by the postings or not.
          for (const e of step.expect)
            expect(request.reads.pairs).toContainEqual([e.account, e.asset]);
          let refusal: unknown;
          try {
            state.apply(request.decide(state, { now: NOW }).change);
            committed++;
            model = after;
          } catch (error) {
            refusal = error;
          }
          if (failures.length === 0) expect(refusal).toBeUndefined();
          else {
            expect(refusal).toBeInstanceOf(PreconditionFailedError);
            const named = [...(refusal as Error).message.matchAll(/expect\[(\d+)\]/g)].map((m) =>
              Number(m[1]),
            );
            expect([...new Set(named)]).toEqual(failures);
          }
          expect(state.head.lastTxId).toBe(committed);
          for (const account of ACCOUNTS)
            for (const asset of ASSETS)
              expect(state.volume(account, asset) ?? { input: 0n, output: 0n }).toEqual(
                model.get(id(account, asset)) ?? { input: 0n, output: 0n },
              );
        }
      }),
      { numRuns: 300, seed: 3101 },
    );
  });
});
