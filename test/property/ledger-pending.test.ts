/**
 * Pending transfers' pure decisions (lib/ledger/domain/pending.ts), for any interleaving of holds, partial and
 * final posts, voids, expiry sweeps, plain payments and the clock moving: decided one after another over an
 * in-memory state, as one sequencer decides them —
 * - every asset's posted balances sum to zero, and its held money in equals its held money out, equals what the
 *   unresolved holds still hold;
 * - no account but `world` ever has a negative available balance (posted − held out), nor a negative posted one;
 * - of each posting of a hold, posted + released never exceeds its amount, a resolved hold's are exactly its
 *   amount, and a resolved hold never changes again;
 * - no post is accepted at or after a hold's expiry, and an expiry sweep after a post or a void does nothing:
 *   expiry never races a post into a double spend.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InsufficientFundError, NotFoundError, ValidationError } from '../../lib/errors/index.js';
import {
  checkAvailableAfter,
  decideCreatePending,
  decidePostPending,
  decideReleasePending,
  type HeldChange,
  type HeldVolume,
  PendingExpiredError,
  PendingResolvedError,
  type PendingState,
  type PendingTransfer,
} from '../../lib/ledger/domain/pending.js';
import { applyPostings, type Posting, type Volume } from '../../lib/ledger/domain/postings.js';
import { type Instant, instantFromMs } from '../../lib/time/instant.js';

const ACCOUNTS = ['world', 'a', 'b', 'c'];
const ASSETS = ['USD', 'EUR'];
const START_MS = Date.parse('2026-11-28T00:00:00Z');

/** The ledger as one sequencer holds it: posted volumes, held volumes, holds. */
class Model implements PendingState {
  readonly volumes = new Map<string, Volume>();
  readonly helds = new Map<string, HeldVolume>();
  readonly holds = new Map<number, PendingTransfer>();
  nextId = 1;
  nextTx = 1;

  volume(account: string, asset: string) {
    return this.volumes.get(`${account}\u0000${asset}`);
  }
  held(account: string, asset: string) {
    return this.helds.get(`${account}\u0000${asset}`);
  }
  pending(id: number) {
    return this.holds.get(id);
  }

  applyHeld(changes: readonly HeldChange[]): void {
    for (const c of changes) this.helds.set(`${c.account}\u0000${c.asset}`, c.held);
  }

  /** A transaction's postings under the overdraft rule (posted ≥ 0 but `world`); throws, changing nothing. */
  transfer(postings: readonly Posting[], checkAvailable: boolean): void {
    const before = new Map<string, Map<string, Volume>>();
    for (const p of postings)
      for (const account of [p.source, p.destination]) {
        const v = this.volume(account, p.asset);
        if (!v) continue;
        if (!before.has(account)) before.set(account, new Map());
        before.get(account)!.set(p.asset, v);
      }
    const after = applyPostings(postings, before, { force: false });
    if (checkAvailable) checkAvailableAfter(this, postings, (a, s) => after.get(a)!.get(s)!, false);
    for (const [account, assets] of after)
      for (const [asset, v] of assets) this.volumes.set(`${account}\u0000${asset}`, v);
    this.nextTx++;
  }
}

type Step =
  | { kind: 'pay'; postings: Posting[] }
  | { kind: 'hold'; postings: Posting[]; ttlMs?: number }
  | { kind: 'post'; target: number; fractions?: number[]; final: boolean }
  | { kind: 'void'; target: number }
  | { kind: 'sweep'; target: number }
  | { kind: 'wait'; ms: number };

const postingArb = fc.record({
  source: fc.constantFrom(...ACCOUNTS),
  destination: fc.constantFrom(...ACCOUNTS),
  amount: fc.bigInt({ min: 0n, max: 30n }),
  asset: fc.constantFrom(...ASSETS),
});
const postings = fc.array(postingArb, { minLength: 1, maxLength: 3 });
const target = fc.integer({ min: 1, max: 4 });

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pay' as const), postings }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('hold' as const),
        postings,
        ttlMs: fc.integer({ min: 1, max: 3_000 }),
      },
      { requiredKeys: ['kind', 'postings'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('post' as const),
        target,
        fractions: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }),
        final: fc.boolean(),
      },
      { requiredKeys: ['kind', 'target', 'final'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const), target }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sweep' as const), target }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.integer({ min: 0, max: 3_000 }),
    }),
  },
);

const REFUSALS = [
  InsufficientFundError,
  ValidationError,
  NotFoundError,
  PendingResolvedError,
  PendingExpiredError,
];
const refused = (err: unknown) => REFUSALS.some((E) => err instanceof E);

/** Runs one step; answers what the property checks about it. */
function run(model: Model, step: Step, now: Instant): 'accepted' | 'refused' | 'no-op' {
  try {
    switch (step.kind) {
      case 'pay':
        model.transfer(step.postings, true);
        return 'accepted';
      case 'hold': {
        const decision = decideCreatePending(model, {
          id: model.nextId,
          postings: step.postings,
          now,
          ...(step.ttlMs !== undefined ? { expiresAt: instantFromMs(now.ms + step.ttlMs) } : {}),
        });
        model.holds.set(model.nextId++, decision.pending);
        model.applyHeld(decision.held);
        return 'accepted';
      }
      case 'post': {
        const hold = model.pending(step.target);
        // A fraction in quarters of what remains, per posting (absent: all that remains).
        const amounts = step.fractions
          ? hold?.postings.map(
              (p, i) => ((p.amount - p.posted - p.voided) * BigInt(step.fractions![i] ?? 4)) / 4n,
            )
          : undefined;
        const decision = decidePostPending(model, step.target, {
          now,
          txId: model.nextTx,
          final: step.final,
          ...(amounts ? { amounts } : {}),
        });
        // The post's money moves as an ordinary transaction after its hold is released.
        const heldBefore = new Map(model.helds);
        model.applyHeld(decision.held);
        try {
          model.transfer(decision.transfer, false);
        } catch (err) {
          model.helds.clear();
          for (const [k, v] of heldBefore) model.helds.set(k, v);
          throw err;
        }
        model.holds.set(step.target, decision.pending);
        return 'accepted';
      }
      case 'void':
      case 'sweep': {
        const decision = decideReleasePending(model, step.target, {
          now,
          reason: step.kind === 'void' ? 'VOID' : 'EXPIRED',
        });
        if (!decision) return 'no-op';
        model.applyHeld(decision.held);
        model.holds.set(step.target, decision.pending);
        return 'accepted';
      }
      case 'wait':
        return 'no-op';
    }
  } catch (err) {
    if (refused(err)) return 'refused';
    throw err;
  }
}

function checkInvariants(model: Model): void {
  for (const asset of ASSETS) {
    let posted = 0n;
    let heldIn = 0n;
    let heldOut = 0n;
    for (const account of ACCOUNTS) {
      const v = model.volume(account, asset) ?? { input: 0n, output: 0n };
      const h = model.held(account, asset) ?? { pendingInput: 0n, pendingOutput: 0n };
      posted += v.input - v.output;
      heldIn += h.pendingInput;
      heldOut += h.pendingOutput;
      expect(h.pendingOutput >= 0n && h.pendingInput >= 0n).toBe(true);
      if (account === 'world') continue;
      expect(v.input - v.output - h.pendingOutput).toBeGreaterThanOrEqual(0n);
    }
    expect(posted).toBe(0n);
    expect(heldIn).toBe(heldOut);
    const remaining = [...model.holds.values()]
      .filter((p) => p.status === 'PENDING')
      .flatMap((p) => p.postings)
      .filter((p) => p.asset === asset)
      .reduce((sum, p) => sum + p.amount - p.posted - p.voided, 0n);
    expect(heldOut).toBe(remaining);
  }
  for (const hold of model.holds.values())
    for (const p of hold.postings) {
      expect(p.posted + p.voided <= p.amount).toBe(true);
      if (hold.status !== 'PENDING') expect(p.posted + p.voided).toBe(p.amount);
    }
}

describe('pending transfers in the decision', () => {
  it('keep money, available balances and every hold exact, and never let expiry race a post', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), (steps) => {
        const model = new Model();
        let clock = START_MS;
        const resolved = new Map<number, string>();
        for (const step of steps) {
          if (step.kind === 'wait') clock += step.ms;
          const now = instantFromMs(clock);
          const hold = 'target' in step ? model.pending(step.target) : undefined;
          const expired = hold?.expiresAt !== undefined && clock >= Date.parse(hold.expiresAt);
          const outcome = run(model, step, now);
          // Expiry: a post at or after it never lands; a sweep lands only on an open hold whose time has come.
          if (step.kind === 'post' && expired) expect(outcome).toBe('refused');
          if (step.kind === 'sweep')
            expect(outcome === 'accepted').toBe(hold?.status === 'PENDING' && expired);
          // A resolved hold never changes again.
          for (const [id, frozen] of resolved)
            expect(JSON.stringify(model.pending(id), bigints)).toBe(frozen);
          for (const [id, p] of model.holds)
            if (p.status !== 'PENDING' && !resolved.has(id))
              resolved.set(id, JSON.stringify(p, bigints));
          checkInvariants(model);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a partial post, another, then the rest released by expiry: available and posted move as held money', () => {
    const model = new Model();
    const t0 = instantFromMs(START_MS);
    model.transfer([{ source: 'world', destination: 'a', amount: 100n, asset: 'USD' }], true);
    const hold = decideCreatePending(model, {
      id: 1,
      postings: [{ source: 'a', destination: 'b', amount: 80n, asset: 'USD' }],
      now: t0,
      expiresAt: instantFromMs(START_MS + 60_000),
    });
    model.holds.set(1, hold.pending);
    model.applyHeld(hold.held);
    expect(hold.held).toEqual([
      { account: 'a', asset: 'USD', held: { pendingInput: 0n, pendingOutput: 80n } },
      { account: 'b', asset: 'USD', held: { pendingInput: 80n, pendingOutput: 0n } },
    ]);
    // 20 available: 21 more is refused, naming the held money.
    expect(() =>
      model.transfer([{ source: 'a', destination: 'c', amount: 21n, asset: 'USD' }], true),
    ).toThrow(
      'account "a" has insufficient available funds for posting 0 (21 USD): available would be -1, 80 being held',
    );
    const post = decidePostPending(model, 1, { now: t0, txId: 2, amounts: [30n] });
    expect(post.transfer).toEqual([{ source: 'a', destination: 'b', amount: 30n, asset: 'USD' }]);
    expect(post.pending).toMatchObject({ status: 'PENDING', transactions: [2] });
    model.applyHeld(post.held);
    model.transfer(post.transfer, false);
    model.holds.set(1, post.pending);
    expect(() => decidePostPending(model, 1, { now: t0, txId: 3, amounts: [51n] })).toThrow(
      'amounts[0]: 51 is more than the 50 USD that remains',
    );
    // Not yet due: the sweep does nothing; at the expiry, it releases the 50 left, and a post is refused.
    expect(decideReleasePending(model, 1, { now: t0, reason: 'EXPIRED' })).toBeUndefined();
    const due = instantFromMs(START_MS + 60_000);
    expect(() => decidePostPending(model, 1, { now: due, txId: 3 })).toThrow(PendingExpiredError);
    const expiry = decideReleasePending(model, 1, { now: due, reason: 'EXPIRED' })!;
    expect([expiry.released, expiry.pending.status, expiry.pending.postings[0]]).toEqual([
      [50n],
      'EXPIRED',
      { source: 'a', destination: 'b', amount: 80n, asset: 'USD', posted: 30n, voided: 50n },
    ]);
    model.applyHeld(expiry.held);
    model.holds.set(1, expiry.pending);
    expect([model.volume('a', 'USD'), model.held('a', 'USD')]).toEqual([
      { input: 100n, output: 30n },
      { pendingInput: 0n, pendingOutput: 0n },
    ]);
    expect(() => decideReleasePending(model, 1, { now: due, reason: 'VOID' })).toThrow(
      'pending transfer 1 is already EXPIRED',
    );
  });
});

function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
