import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inEnvironmentScope } from '../../dynamo/environment-scope.js';
import type { Logger } from '../../observability/logger.js';
import { instantFromMs, sortableInstant } from '../../time/instant.js';
import type { LedgerRecord } from '../domain/change.js';
import { dueHoldLedgers } from '../store/due-holds.js';
import { type SweepParts, sweepExpiredHolds } from '../write/sweep-holds.js';

/** Due-index entries one sweep reads per shard of each table at most: the next sweep finds the rest. */
export const MAX_DUE_PER_SHARD = 200;

export interface HoldSweepDeps {
  /** The function's own client (outside any environment's scope): the `due` index of every environment. */
  doc: DynamoDBDocumentClient;
  /** Every ledger table (the default one and the buckets' own). */
  tables: readonly string[];
  /** A ledger's record, read in its environment's scope. */
  resolve(environment: string, name: string): Promise<LedgerRecord>;
  /** How one ledger's due holds are read and released (write/sweep-holds.ts). */
  sweep: SweepParts;
  logger?: Logger;
}

export interface HoldSweepTick {
  /** Holds released (voided with reason EXPIRED). */
  released: number;
  /** Ledgers that had holds due. */
  ledgers: number;
  /** Ledgers whose sweep failed (logged; their holds stay due for the next sweep). */
  failed: number;
  /** How long the most overdue hold found had been due (0 when none was). */
  lagMs: number;
}

/**
 * One sweep of every ledger's expired holds: the hold sweeper Lambda's run (functions/ledger-holds.ts, started every
 * minute by an EventBridge schedule) and the local platform's timer alike. The `due` index says which ledgers have
 * holds due; each such ledger is swept in its environment's scope (its credentials where the isolation guard is on),
 * every release a write decided by the ledger's writer like any other, so a hold posted or voided meanwhile is
 * skipped, never raced. A ledger that fails is logged and counted, and the others are still swept.
 */
export async function runHoldSweep(deps: HoldSweepDeps): Promise<HoldSweepTick> {
  const nowMs = deps.sweep.now();
  const sortableNow = sortableInstant(instantFromMs(nowMs));
  const due = (
    await Promise.all(
      deps.tables.map((table) => dueHoldLedgers(deps.doc, table, sortableNow, MAX_DUE_PER_SHARD)),
    )
  ).flat();
  const tick: HoldSweepTick = { released: 0, ledgers: due.length, failed: 0, lagMs: 0 };
  for (const { ledger, oldestDueMs } of due) {
    tick.lagMs = Math.max(tick.lagMs, nowMs - oldestDueMs);
    try {
      const released = await inEnvironmentScope(ledger.environment, async () =>
        sweepExpiredHolds(deps.sweep, await deps.resolve(ledger.environment, ledger.name)),
      );
      tick.released += released.length;
    } catch (err) {
      tick.failed++;
      deps.logger?.log('error', 'hold sweep of a ledger failed', {
        environment: ledger.environment,
        ledger: ledger.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return tick;
}
