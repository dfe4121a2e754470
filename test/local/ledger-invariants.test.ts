/**
 * The bench's ledger invariant checker, both ways: after a short world-to-any and hot-spend load over HTTP on the
 * local platform every invariant holds; and on a snapshot or record broken on purpose (a gap, a wrong balance, a
 * broken hash link, an overdraft, a stray transaction, an overspent budget, an unexpected refusal) exactly the
 * invariants that the breakage violates fail, so a green bench run means something.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkInvariants,
  type InvariantReport,
  type LedgerSnapshot,
  type LoadRecord,
} from '../../bench/ledger-invariants.js';
import { runScenario, type ScenarioName, type ScenarioRun } from '../../bench/ledger-scenarios.js';
import { type LedgerTarget, readLedgerSnapshot } from '../../bench/ledger-snapshot.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform, testClientToken } from '../support/platform.js';

let platform: RunningPlatform;
let target: LedgerTarget;

beforeAll(async () => {
  platform = await startTestPlatform();
  target = { baseUrl: platform.baseUrl, token: await testClientToken(platform) };
});
afterAll(async () => {
  await platform?.stop();
});

const REQUESTS = 300;
const BUDGET = 200n;

async function load(
  scenario: ScenarioName,
  options: { keyed?: boolean; requests?: number } = {},
): Promise<{ run: ScenarioRun; snapshot: LedgerSnapshot }> {
  const ledger = `inv-${scenario}-${randomBytes(4).toString('hex')}`;
  const run = await runScenario(target, scenario, ledger, {
    clients: 8,
    stop: { requests: options.requests ?? REQUESTS },
    hotSpendBudget: BUDGET,
    ...(options.keyed ? { keyed: true } : {}),
  });
  return { run, snapshot: await readLedgerSnapshot(target, ledger) };
}

const failed = (report: InvariantReport) =>
  report.invariants.filter((i) => !i.ok).map((i) => i.name);
const detail = (report: InvariantReport, name: string) =>
  report.invariants.find((i) => i.name === name)?.detail;

describe('ledger invariants after a load run', () => {
  let worldToAny: { run: ScenarioRun; snapshot: LedgerSnapshot };

  beforeAll(async () => {
    worldToAny = await load('world-to-any');
  });

  it('world-to-any: every acknowledged transaction is there and every invariant holds', () => {
    const { run, snapshot } = worldToAny;
    const report = checkInvariants(snapshot, run.record);
    expect(failed(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(run.requests).toBe(REQUESTS);
    const committedUnanswered = Object.values(report.committedAfterUncertain).reduce(
      (a, b) => a + b,
      0,
    );
    expect(report.transactions).toBe(run.record.acknowledged.length + committedUnanswered);
    // One NEW_TRANSACTION log per transaction, nothing else was written.
    expect(report.logs).toBe(report.transactions);
  });

  it('sends no Idempotency-Key unless keyed, and holds its invariants either way', async () => {
    const plainLog = worldToAny.snapshot.logs[0]!;
    expect(plainLog.idempotencyKey).toBe('');
    expect((plainLog.data as { transaction: { metadata: object } }).transaction.metadata).toEqual(
      {},
    );

    const keyed = await load('world-to-any', { keyed: true, requests: 40 });
    const report = checkInvariants(keyed.snapshot, keyed.run.record);
    expect(failed(report)).toEqual([]);
    expect(report.transactions).toBe(40);
    expect(keyed.snapshot.logs[0]!.idempotencyKey).toMatch(
      /^inv-world-to-any-[0-9a-f]{8}-load-c\d-\d+$/,
    );
  });

  it('hot-spend: exactly the budget is spent and the account ends at zero', async () => {
    const { run, snapshot } = await load('hot-spend');
    const report = checkInvariants(snapshot, run.record);
    expect(failed(report)).toEqual([]);
    expect(detail(report, 'hot-spend total equals the budget')).toMatch(/^200 spent /);
    const spent = run.record.acknowledged
      .flatMap((a) => a.postings)
      .filter((p) => p.source === 'hot:wallet')
      .reduce((s, p) => s + p.amount, 0n);
    // Acknowledged spends never exceed the budget; the invariant above adds the ones committed without an answer.
    expect(spent).toBeLessThanOrEqual(BUDGET);
    // Every client stops only after a refusal at amount 1, so every one of the 8 saw the account empty.
    expect(run.statuses['400 INSUFFICIENT_FUND']).toBeGreaterThanOrEqual(8);
  });

  describe('the checker catches a broken invariant', () => {
    const broken = (edit: (s: LedgerSnapshot, r: LoadRecord) => void) => {
      const snapshot = structuredClone(worldToAny.snapshot);
      const record = structuredClone(worldToAny.run.record);
      edit(snapshot, record);
      return checkInvariants(snapshot, record);
    };

    it('a missing transaction: a gap in the ids, an acknowledged transaction and a logged one not listed, balances off', () => {
      const report = broken((s) => void s.transactions.splice(41, 1));
      expect(failed(report)).toEqual([
        'transaction ids are 1..N',
        'every transaction logged once, as listed',
        'every acknowledged transaction present once, as sent',
        'balances equal the replay of the postings',
      ]);
      expect(detail(report, 'transaction ids are 1..N')).toBe(
        'position 42: expected transaction 42, found transaction 43 (gap)',
      );
      expect(report.ok).toBe(false);
    });

    it('a duplicated log id', () => {
      const report = broken((s) => {
        s.logs[5] = { ...s.logs[5]!, id: 5 };
      });
      expect(failed(report)).toEqual(['log ids are 1..M', 'hash chain verifies']);
      expect(detail(report, 'log ids are 1..M')).toBe(
        'position 6: expected log 6, found log 5 (duplicate or out of order)',
      );
    });

    it('a wrong balance: the account differs from the replay and the asset no longer sums to zero', () => {
      const report = broken((s) => {
        const account = s.accounts.find((a) => a.address !== 'world')!;
        account.volumes['USD/2']!.balance += 1n;
      });
      expect(failed(report)).toEqual([
        'balances equal the replay of the postings',
        'sum of balances per asset is 0',
      ]);
      expect(detail(report, 'sum of balances per asset is 0')).toBe('USD/2 sums to 1');
    });

    it('a wrong aggregate', () => {
      const report = broken((s) => {
        s.aggregate['USD/2'] = 7n;
      });
      expect(failed(report)).toEqual(['aggregate/balances equals the replay']);
      expect(detail(report, 'aggregate/balances equals the replay')).toBe(
        'USD/2: aggregate 7, replay 0',
      );
    });

    it('a broken hash link', () => {
      const report = broken((s) => {
        s.logs[2] = { ...s.logs[2]!, hash: 'AAAA' };
      });
      expect(failed(report)).toEqual(['hash chain verifies']);
      expect(detail(report, 'hash chain verifies')).toMatch(
        /^log 3: hash mismatch: stored AAAA, recomputed /,
      );
    });

    it('a transaction no client was acknowledged for, and one answered "not committed" that committed', () => {
      const report = broken((_s, r) => {
        const second = r.acknowledged.splice(0, 2)[1];
        r.uncertain.push({
          tag: second!.tag,
          outcome: '503',
          declaredNotCommitted: true,
          postings: second!.postings,
        });
      });
      expect(failed(report)).toEqual([
        'no transaction without an acknowledged or unanswered request',
        'no "not committed" answer committed',
      ]);
      expect(report.committedAfterUncertain).toEqual({ '503': 1, '504': 0, 'network error': 0 });
    });

    it('ties a keyless transaction to an unanswered request by its postings, taking a "not committed" one last', () => {
      const report = broken((_s, r) => {
        const first = r.acknowledged.shift()!;
        r.uncertain.push(
          { tag: 'a', outcome: '503', declaredNotCommitted: true, postings: first.postings },
          { tag: 'b', outcome: '504', declaredNotCommitted: false, postings: first.postings },
        );
      });
      expect(failed(report)).toEqual([]);
      expect(report.committedAfterUncertain).toEqual({ '503': 0, '504': 1, 'network error': 0 });
    });

    it('an acknowledged transaction listed with other postings', () => {
      const report = broken((_s, r) => {
        r.acknowledged[3]!.postings[0]!.amount += 1n;
      });
      expect(failed(report)).toEqual(['every acknowledged transaction present once, as sent']);
    });

    it('an account below zero at some point in commit order, even if it ends positive', () => {
      const report = checkInvariants(
        {
          transactions: [
            {
              id: 1,
              postings: [{ source: 'users:a', destination: 'users:b', asset: 'USD/2', amount: 5n }],
            },
            {
              id: 2,
              postings: [{ source: 'world', destination: 'users:a', asset: 'USD/2', amount: 9n }],
            },
          ],
          accounts: [],
          aggregate: {},
          logs: [],
        },
        { acknowledged: [], uncertain: [], statuses: {}, expectedRefusals: [] },
      );
      expect(detail(report, 'no account but world below zero, in commit order')).toBe(
        'after transaction 1, users:a holds -5 USD/2',
      );
    });

    it('a hot spend over its budget, and an unexpected refusal', () => {
      const report = broken((_s, r) => {
        r.hotSpend = { account: 'users:7', asset: 'USD/2', budget: 1n };
        r.statuses['400 VALIDATION'] = 2;
      });
      expect(failed(report)).toEqual([
        'only the expected refusals',
        'hot-spend total equals the budget',
      ]);
      expect(detail(report, 'only the expected refusals')).toBe(
        'unexpected answers: 2× 400 VALIDATION',
      );
    });
  });
});
