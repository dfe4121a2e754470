import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../../observability/logger.js';
import { instantFromMs, sortableInstant } from '../../time/instant.js';
import type { LedgerRecord } from '../domain/change.js';
import { dueHoldLedgers, earliestHoldDueMs } from '../store/due-holds.js';
import { type SweepParts, sweepExpiredHolds } from '../write/sweep-holds.js';

/** Due-index entries one sweep reads per shard of each table at most: the next sweep finds the rest. */
export const MAX_DUE_PER_SHARD = 200;

export interface HoldSweepDeps {
  /** The function's own client (no environment's): the `due` index of every environment. */
  doc: DynamoDBDocumentClient;
  /** Every ledger table (the default one and the buckets' own). */
  tables: readonly string[];
  /** One environment's stores, over that environment's client (its credentials where the guard is on). */
  scopeFor(environment: string): HoldSweepScope;
  now: () => number;
  logger?: Logger;
}

/** What one environment's sweep reads and writes through. */
export interface HoldSweepScope {
  /** A ledger's record. */
  resolve(name: string): Promise<LedgerRecord>;
  /** How one ledger's due holds are read and released (write/sweep-holds.ts). */
  sweep: SweepParts;
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
 * holds due; each such ledger is swept through its environment's stores (its credentials where the isolation guard is on),
 * every release a write decided by the ledger's writer like any other, so a hold posted or voided meanwhile is
 * skipped, never raced. A ledger that fails is logged and counted, and the others are still swept.
 */
export async function runHoldSweep(deps: HoldSweepDeps): Promise<HoldSweepTick> {
  const nowMs = deps.now();
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
      const scope = deps.scopeFor(ledger.environment);
      const released = await sweepExpiredHolds(scope.sweep, await scope.resolve(ledger.name));
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

/**
 * When the next hold of any ledger falls due (undefined: none is waiting): lets a caller that sweeps on its own
 * clock (the local platform's timer) sleep until then instead of polling the index.
 */
export async function nextHoldDueMs(
  deps: Pick<HoldSweepDeps, 'doc' | 'tables'>,
): Promise<number | undefined> {
  const dues = (
    await Promise.all(deps.tables.map((table) => earliestHoldDueMs(deps.doc, table)))
  ).filter((due): due is number => due !== undefined);
  return dues.length > 0 ? Math.min(...dues) : undefined;
}
