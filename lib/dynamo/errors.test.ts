import { describe, expect, it } from 'vitest';
import { classifyWriteFailure } from './errors.js';

const named = (name: string, reasons?: string[]) =>
  Object.assign(new Error(name), {
    name,
    ...(reasons ? { CancellationReasons: reasons.map((Code) => ({ Code })) } : {}),
  });
const canceled = (...codes: string[]) => named('TransactionCanceledException', codes);

describe('the one classification of a failed DynamoDB write', () => {
  it('ranks throttling over conflicts over failed conditions, and keeps the first failed condition index', () => {
    expect(
      classifyWriteFailure(canceled('None', 'ConditionalCheckFailed', 'ConditionalCheckFailed')),
    ).toEqual({ kind: 'condition', index: 1 });
    expect(classifyWriteFailure(canceled('ConditionalCheckFailed', 'TransactionConflict'))).toEqual(
      { kind: 'conflict', index: 0 },
    );
    expect(classifyWriteFailure(canceled('TransactionConflict', 'ThrottlingError'))).toEqual({
      kind: 'throttled',
      index: -1,
    });
    expect(classifyWriteFailure(canceled('None', 'ProvisionedThroughputExceeded'))).toEqual({
      kind: 'throttled',
      index: -1,
    });
    expect(classifyWriteFailure(canceled('ConditionalCheckFailed', 'ValidationError'))).toEqual({
      kind: 'other',
      index: 0,
    });
    expect(classifyWriteFailure(canceled())).toEqual({ kind: 'other', index: -1 });
  });

  it('reads single-item and service errors by name', () => {
    expect(classifyWriteFailure(named('ConditionalCheckFailedException'))).toEqual({
      kind: 'condition',
      index: 0,
    });
    expect(classifyWriteFailure(named('TransactionConflictException'))).toEqual({
      kind: 'conflict',
      index: -1,
    });
    expect(classifyWriteFailure(named('TransactionInProgressException'))).toEqual({
      kind: 'conflict',
      index: -1,
    });
    expect(classifyWriteFailure(named('ProvisionedThroughputExceededException'))).toEqual({
      kind: 'throttled',
      index: -1,
    });
    expect(classifyWriteFailure(named('ValidationException'))).toEqual({
      kind: 'other',
      index: -1,
    });
    expect(classifyWriteFailure('not an error')).toEqual({ kind: 'other', index: -1 });
  });
});
