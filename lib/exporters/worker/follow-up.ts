import type { WakeKind } from '../store/pipeline-wakes.js';
import type { DrainOutcome } from './drain-pipeline.js';

/** SQS holds a message back at most 15 minutes: a longer wait is made of several hops. */
export const MAX_DELAY_SECONDS = 900;

/** What to queue after a drain: the same pipeline, again, after `delaySeconds`. */
export interface FollowUp {
  kind: WakeKind;
  delaySeconds: number;
}

/**
 * The next drain a drain's outcome asks for, if any. A backfill with more to send goes on at once (in another
 * invocation, so no one pipeline holds a worker); a failure comes back when its back-off ends. A wake that finds the
 * pipeline still backing off queues nothing: the failure that started the back-off queued its retry already, and
 * a busy ledger would otherwise pile up one retry per commit. A retry that comes before its time (a back-off longer
 * than SQS's 15 minutes) waits another hop.
 */
export function followUpOf(
  kind: WakeKind,
  outcome: DrainOutcome,
  nowMs: number,
): FollowUp | undefined {
  switch (outcome.state) {
    case 'more':
      return { kind: 'wake', delaySeconds: 0 };
    case 'failed':
      return { kind: 'retry', delaySeconds: delayUntil(outcome.retryAtMs, nowMs) };
    case 'waiting':
      return kind === 'retry'
        ? { kind: 'retry', delaySeconds: delayUntil(outcome.retryAtMs, nowMs) }
        : undefined;
    default:
      return undefined;
  }
}

const delayUntil = (atMs: number, nowMs: number) =>
  Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((atMs - nowMs) / 1000)));
