import type { Position } from './ast.js';

/**
 * The ledger's error codes a script can end in. The interpreter itself only raises COMPILATION_FAILED and
 * INSUFFICIENT_FUND; METADATA_OVERRIDE comes from mergeTxMetadata, and NO_POSTINGS is the caller's rule (the
 * reference's interpreter happily returns an empty list).
 */
export type NumscriptErrorCode =
  | 'COMPILATION_FAILED'
  | 'INSUFFICIENT_FUND'
  | 'NO_POSTINGS'
  | 'METADATA_OVERRIDE';

/**
 * Which of the reference's failures this is (its Go error type names), so a caller or a test can tell apart
 * failures that share an error code, e.g. a missing variable from a parse error.
 */
export type NumscriptErrorKind =
  | 'ParseError'
  | 'TypeError'
  | 'UnboundVariable'
  | 'DuplicateVariable'
  | 'InvalidType'
  | 'UnboundFunction'
  | 'BadArity'
  | 'MissingVariable'
  | 'InvalidVariableValue'
  | 'InvalidAccountName'
  | 'MetadataNotFound'
  | 'InvalidNestedMeta'
  | 'NegativeBalance'
  | 'NegativeAmount'
  | 'MismatchedCurrency'
  | 'InvalidAllotmentSum'
  | 'InvalidAllotmentInSendAll'
  | 'InvalidUnboundedInSendAll'
  | 'InvalidUnboundedAddressInScalingAddress'
  | 'DivideByZero'
  | 'ExperimentalFeature'
  | 'InvalidPosting'
  | 'MissingFunds'
  | 'MetadataOverride'
  | 'NoPostings';

export class NumscriptError extends Error {
  override readonly name = 'NumscriptError';

  constructor(
    readonly code: NumscriptErrorCode,
    readonly kind: NumscriptErrorKind,
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? message : `${message} (line ${line}, column ${column})`);
  }
}

/** Any failure of a script's text or its run other than missing funds: the reference answers all of them 400. */
export function compilationError(
  kind: NumscriptErrorKind,
  message: string,
  at?: Position,
): NumscriptError {
  return new NumscriptError('COMPILATION_FAILED', kind, message, at?.line, at?.column);
}
