/**
 * Classifies DynamoDB failures by the SDK's error names (no SDK import needed to recognise them).
 */

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

export function isThrottling(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (THROTTLING.has(err.name)) return true;
  // A cancelled transaction reports throttling per item in its reasons.
  const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  return Array.isArray(reasons) && reasons.some((r) => r.Code === 'ThrottlingError');
}

/** True when a transaction was cancelled only because of failed conditions (no throttling, no conflict). */
export function isConditionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ConditionalCheckFailedException') return true;
  if (err.name !== 'TransactionCanceledException') return false;
  const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'ConditionalCheckFailed') && reasons.every((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'None');
}

/** Index of the first transaction item whose condition failed, or -1. */
export function failedConditionIndex(err: unknown): number {
  const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> } | undefined)?.CancellationReasons ?? [];
  return reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
}
