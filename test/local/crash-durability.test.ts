/**
 * Acknowledged writes survive a crash of `npm start`: rounds of a burst of concurrent writes, the whole process
 * group SIGKILLed right after an answer, and a restart on the same DATA_DIR that finds every acknowledged ledger
 * transaction and payment, and gives the next transaction an id past every one a client holds. Without the
 * gateway's durability barrier (infra/local/durability-barrier.ts) every round here loses the payment answered
 * just before the kill. The long form: `npx tsx bench/crash-durability.ts --rounds 20`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCrashRounds } from '../../bench/crash-durability.js';

const dataDir = mkdtempSync(join(tmpdir(), 'crash-durability-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start killed mid-burst (SIGKILL to its process group)', () => {
  it('keeps every acknowledged transaction and payment, and never re-issues an acknowledged transaction id', async () => {
    const results = await runCrashRounds({
      dataDir,
      rounds: 2,
      concurrency: 16,
      minAcks: 20,
      maxAcks: 60,
    });

    expect(results).toHaveLength(2);
    for (const round of results) {
      expect(round.acknowledgedPayments).toBeGreaterThan(0);
      expect(round.acknowledgedTransactions).toBeGreaterThan(0);
      expect(round.missingTransactions).toEqual([]);
      expect(round.missingPayments).toEqual([]);
      expect(round.nextId).toBeGreaterThan(round.maxAcknowledgedId);
    }
  });
});
