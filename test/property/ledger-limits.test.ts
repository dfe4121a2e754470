/**
 * Limits in the pure decision, for any sequence of writes: forced transactions and reverts (force lifts the
 * overdraft rule, never a limit without `forceAllowed`) decided one after another on an in-memory state holding
 * limits — every asset still sums to zero, no account but `world` ever ends a committed write outside
 * [min, max], and a write is refused exactly when the model says it would leave one outside.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InsufficientFundError, LimitExceededError } from '../../lib/errors/index.js';
import { createTransactionWrite } from '../../lib/ledger/commands/create-transaction.js';
import { revertTransactionWrite } from '../../lib/ledger/commands/revert-transaction.js';
import type { LedgerRecord, WriteRequest } from '../../lib/ledger/domain/change.js';
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
const ASSETS = ['USD', 'EUR'];
const NOW = instantFromMs(Date.parse('2026-11-28T00:00:00Z'));
const MIN = -10n;
const MAX = 30n;

type Posting = { source: string; destination: string; amount: bigint; asset: string };
type Step = { kind: 'create'; postings: Posting[] } | { kind: 'revert'; target: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      postings: fc.array(
        fc.record({
          source: fc.constantFrom(...ACCOUNTS),
          destination: fc.constantFrom(...ACCOUNTS),
          amount: fc.bigInt({ min: 0n, max: 25n }),
          asset: fc.constantFrom(...ASSETS),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('revert' as const),
      target: fc.integer({ min: 1, max: 20 }),
    }),
  },
);

const id = (account: string, asset: string) => `${account}\u0000${asset}`;

describe('limits in the decision', () => {
  it('keep every account within [min, max] and every asset summing to zero, whatever is forced', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => {
        const state = new MemoryLedgerState(undefined, {
          contracts: [],
          limits: [{ account: '*', min: MIN, max: MAX }],
        });
        for (const step of steps) {
          const balances = new Map<string, bigint>();
          const balance = (account: string, asset: string) =>
            balances.get(id(account, asset)) ??
            (state.volume(account, asset)
              ? state.volume(account, asset)!.input - state.volume(account, asset)!.output
              : 0n);
          let request: WriteRequest<unknown>;
          let postings: Posting[];
          if (step.kind === 'create') {
            postings = step.postings;
            request = createTransactionWrite(LEDGER, { postings }, { dryRun: false, force: true });
          } else {
            const original = state.transaction(step.target);
            if (!original || original.tx.reverted) continue;
            postings = [...original.tx.postings]
              .reverse()
              .map((p) => ({ ...p, source: p.destination, destination: p.source }));
            request = revertTransactionWrite(
              LEDGER,
              step.target,
              original.tx,
              {},
              {
                force: true,
                atEffectiveDate: false,
                dryRun: false,
              },
            );
          }
          // The model: final balances; a pair that moved down below MIN or up above MAX breaks a limit.
          const start = new Map<string, bigint>();
          for (const p of postings)
            for (const account of [p.source, p.destination])
              if (!start.has(id(account, p.asset)))
                start.set(id(account, p.asset), balance(account, p.asset));
          for (const p of postings) {
            balances.set(id(p.source, p.asset), balance(p.source, p.asset) - p.amount);
            balances.set(id(p.destination, p.asset), balance(p.destination, p.asset) + p.amount);
          }
          const breaks = [...balances].some(([key, after]) => {
            if (key.startsWith('world\u0000')) return false;
            const before = start.get(key)!;
            return (after < before && after < MIN) || (after > before && after > MAX);
          });
          let refusal: unknown;
          try {
            state.apply(request.decide(state, { now: NOW }).change);
          } catch (error) {
            refusal = error;
          }
          if (breaks)
            expect(
              refusal instanceof InsufficientFundError || refusal instanceof LimitExceededError,
            ).toBe(true);
          else expect(refusal).toBeUndefined();
        }
        for (const asset of ASSETS) {
          let sum = 0n;
          for (const account of ACCOUNTS) {
            const v = state.volume(account, asset) ?? { input: 0n, output: 0n };
            sum += v.input - v.output;
            if (account !== 'world') {
              expect(v.input - v.output).toBeGreaterThanOrEqual(MIN);
              expect(v.input - v.output).toBeLessThanOrEqual(MAX);
            }
          }
          expect(sum).toBe(0n);
        }
      }),
      { numRuns: 200, seed: 3103 },
    );
  });
});
