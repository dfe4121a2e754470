/**
 * Classifies DynamoDB failures by the SDK's error names (no SDK import needed to recognise them).
 */

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

/**
 * The one classification of a failed DynamoDB write (single item or transaction), by precedence:
 * `throttled` (throughput, any item), `conflict` (another transaction held an item), `condition` (a condition
 * failed and nothing else went wrong), `other`. `index` is the first item whose condition failed (0 for a
 * single-item write's failed condition), -1 when none did; a caller may need it whatever the kind.
 */
export type WriteFailure = {
  kind: 'throttled' | 'conflict' | 'condition' | 'other';
  index: number;
};

const CONFLICT_NAMES = new Set(['TransactionConflictException', 'TransactionInProgressException']);
const THROTTLED_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);
/** Reasons that leave a cancelled transaction a plain condition failure. */
const CONDITION_REASONS = new Set(['ConditionalCheckFailed', 'None']);

export function classifyWriteFailure(err: unknown): WriteFailure {
  if (!(err instanceof Error)) return { kind: 'other', index: -1 };
  if (THROTTLING.has(err.name)) return { kind: 'throttled', index: -1 };
  if (CONFLICT_NAMES.has(err.name)) return { kind: 'conflict', index: -1 };
  if (err.name === 'ConditionalCheckFailedException') return { kind: 'condition', index: 0 };
  if (err.name !== 'TransactionCanceledException') return { kind: 'other', index: -1 };
  const reasons = (
    (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []
  ).map((r) => r.Code ?? 'None');
  const index = reasons.indexOf('ConditionalCheckFailed');
  if (reasons.some((code) => THROTTLED_REASONS.has(code))) return { kind: 'throttled', index };
  if (reasons.includes('TransactionConflict')) return { kind: 'conflict', index };
  if (index >= 0 && reasons.every((code) => CONDITION_REASONS.has(code)))
    return { kind: 'condition', index };
  return { kind: 'other', index };
}

/**
 * A failure of ours that is DynamoDB throttling in all but name (a batch call it kept leaving partly unprocessed):
 * named as its throttling errors are, so this classification and the error mapper treat it alike (503, retry).
 */
export const throttlingError = (message: string): Error =>
  Object.assign(new Error(message), { name: 'ThrottlingException' });

export const isThrottling = (err: unknown): boolean =>
  classifyWriteFailure(err).kind === 'throttled';

/** True when a write failed only because of failed conditions (no throttling, no conflict). */
export const isConditionFailure = (err: unknown): boolean =>
  classifyWriteFailure(err).kind === 'condition';

/** True when another transaction held an item the write needed. */
export const isTransactionConflict = (err: unknown): boolean =>
  classifyWriteFailure(err).kind === 'conflict';
