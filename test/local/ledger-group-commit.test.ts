/**
 * The ledger as `npm start` runs it — several independent worker processes, each one request at a time, and the
 * ledger writer process fed by the ingress queue — under concurrent load on one ledger, then with the writer
 * killed (SIGKILL) again and again in the middle of it. After each run every money invariant holds, read through
 * the public API (bench/ledger-invariants.ts): ids gapless, every acknowledged transaction present exactly once
 * as sent, balances equal to the replay, sums zero, the hash chain intact, the hot-spend budget never exceeded.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInvariants } from '../../bench/ledger-invariants.js';
import { runScenario, type ScenarioName } from '../../bench/ledger-scenarios.js';
import { readLedgerSnapshot, type LedgerTarget } from '../../bench/ledger-snapshot.js';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { createDocumentClient } from '../../lib/dynamo/client.js';
import { startTestPlatform, testClientToken } from '../support/platform.js';

let platform: RunningPlatform;
let target: LedgerTarget;

beforeAll(async () => {
  platform = await startTestPlatform({ ledgerWorkers: 6 });
  target = { baseUrl: platform.baseUrl, token: await testClientToken(platform) };
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

async function loadAndCheck(scenario: ScenarioName, options: { requests: number; clients: number; budget?: bigint; during?: () => Promise<void> }) {
  const ledger = `gc-${scenario}-${randomBytes(4).toString('hex')}`;
  const [run] = await Promise.all([
    runScenario(target, scenario, ledger, { clients: options.clients, stop: { requests: options.requests }, hotSpendBudget: options.budget ?? 200n }),
    options.during?.(),
  ]);
  const report = checkInvariants(await readLedgerSnapshot(target, ledger), run.record);
  return { ledger, run, report };
}

const failedInvariants = (report: ReturnType<typeof checkInvariants>) => report.invariants.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail ?? ''}`);

describe('one ledger, independent workers and the group-commit writer', () => {
  it('holds every invariant under concurrent load, with busy writes relayed to the writer', async () => {
    const { ledger, run, report } = await loadAndCheck('world-to-any', { requests: 400, clients: 12 });
    expect(failedInvariants(report)).toEqual([]);
    expect(run.statuses).toEqual({ '200': 400 });
    // The writer took part: its lease is on HEAD.
    const doc = createDocumentClient({ endpoint: platform.env.DYNAMODB_ENDPOINT!, region: 'us-east-1' });
    const { Item } = await doc.send(new GetCommand({ TableName: platform.env.LEDGER_TABLE!, Key: { pk: `L#${ledger}`, sk: 'HEAD' }, ConsistentRead: true }));
    expect(typeof Item?.leaseOwner).toBe('string');
  });

  it('never spends more than a hot account holds, whatever the interleaving', async () => {
    const { run, report } = await loadAndCheck('hot-spend', { requests: 400, clients: 12, budget: 150n });
    expect(failedInvariants(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(Object.keys(run.statuses).sort()).toEqual(['200', '400 INSUFFICIENT_FUND']);
  });

  it('loses nothing acknowledged and commits nothing twice when the writer is killed mid-load, again and again', async () => {
    let kills = 0;
    const killer = async () => {
      for (let round = 0; round < 4; round++) {
        await new Promise((r) => setTimeout(r, 400 + Math.random() * 300));
        for (const pid of platform.ledgerPids().writers) {
          process.kill(pid, 'SIGKILL');
          kills++;
        }
      }
    };
    const { run, report } = await loadAndCheck('world-to-any', { requests: 500, clients: 12, during: killer });
    expect(kills).toBeGreaterThanOrEqual(3);
    expect(failedInvariants(report)).toEqual([]);
    // Every request got an answer; one whose writer died is answered from its log items by the next writer, or,
    // if none answered in time, 504 (outcome unknown) — never a 503 for something that was committed.
    const answered = Object.entries(run.statuses).filter(([status]) => status !== '200' && status !== '504');
    expect(answered).toEqual([]);
    expect(report.committedAfterUncertain['503']).toBe(0);
  }, 120_000);
});
