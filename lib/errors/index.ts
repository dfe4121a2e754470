/**
 * One error type per failure kind. Domain code throws these; `lib/http/error-mapper.ts` is the only place that
 * turns a kind into the contract's `errorCode` and HTTP status.
 */

export type ErrorKind =
  | 'validation'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'forbidden'
  | 'dependency_throttled'
  | 'insufficient_fund'
  | 'no_postings'
  | 'already_reverted'
  | 'ledger_already_exists'
  | 'schema_already_exists'
  | 'schema_not_specified'
  | 'ledger_not_found'
  | 'bulk_size_exceeded'
  | 'not_committed'
  | 'outcome_unknown'
  | 'compilation_failed'
  | 'metadata_override'
  | 'reads_changed'
  | 'precondition_failed'
  | 'limit_exceeded'
  | 'pending_resolved'
  | 'pending_expired'
  | 'import'
  | 'not_implemented'
  | 'no_sandbox_environment'
  | 'environment_not_empty';

export abstract class PlatformError extends Error {
  abstract readonly kind: ErrorKind;
  readonly details: string | undefined;
  constructor(message: string, details?: string) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** Malformed or invalid input. The message names the field. */
export class ValidationError extends PlatformError {
  readonly kind = 'validation';
}

export class NotFoundError extends PlatformError {
  readonly kind = 'not_found';
}

export class ConflictError extends PlatformError {
  readonly kind = 'conflict';
}

export class PayloadTooLargeError extends PlatformError {
  readonly kind = 'payload_too_large';
}

/** RFC 6750 `invalid_token`: missing, malformed, expired or untrusted bearer token. */
export class InvalidTokenError extends PlatformError {
  readonly kind = 'invalid_token';
}

/** RFC 6750 `insufficient_scope`. */
export class InsufficientScopeError extends PlatformError {
  readonly kind = 'insufficient_scope';
  constructor(
    message: string,
    readonly requiredScope: string,
  ) {
    super(message);
  }
}

/**
 * The caller is authenticated but may not do this: a token of the wrong kind (an environment token on the platform
 * API), or a person whose role in the organization does not allow it.
 */
export class ForbiddenError extends PlatformError {
  readonly kind = 'forbidden';
}

/** A dependency (DynamoDB) is throttling us; the caller may retry. */
export class DependencyThrottledError extends PlatformError {
  readonly kind = 'dependency_throttled';
}

/** A protected account would go below its floor (create or revert). */
export class InsufficientFundError extends PlatformError {
  readonly kind = 'insufficient_fund';
}

export class NoPostingsError extends PlatformError {
  readonly kind = 'no_postings';
}

export class AlreadyRevertedError extends PlatformError {
  readonly kind = 'already_reverted';
}

export class LedgerAlreadyExistsError extends PlatformError {
  readonly kind = 'ledger_already_exists';
}

/** A ledger schema version that exists already: versions are immutable. */
export class SchemaAlreadyExistsError extends PlatformError {
  readonly kind = 'schema_already_exists';
}

/** A write on a ledger that has schemas, naming none (`schemaVersion`). */
export class SchemaNotSpecifiedError extends PlatformError {
  readonly kind = 'schema_not_specified';
}

/** Any route under `/v2/<ledger>/...` on a ledger that does not exist. */
export class LedgerNotFoundError extends PlatformError {
  readonly kind = 'ledger_not_found';
}

export class BulkSizeExceededError extends PlatformError {
  readonly kind = 'bulk_size_exceeded';
}

/**
 * A write relayed to a ledger's sequenced writer that was not decided before its deadline: it was not committed
 * and never will be; the caller may retry (503 with Retry-After).
 */
export class NotCommittedError extends PlatformError {
  readonly kind = 'not_committed';
}

/** A relayed write whose answer did not come in time: it may or may not have committed (504; retry it with its Idempotency-Key). */
export class OutcomeUnknownError extends PlatformError {
  readonly kind = 'outcome_unknown';
}

/** A Numscript script that does not parse, type-check or bind its variables (400 COMPILATION_FAILED, naming line and column). */
export class CompilationFailedError extends PlatformError {
  readonly kind = 'compilation_failed';
}

/** A script setting a transaction metadata key the request sets too (400 METADATA_OVERRIDE). */
export class MetadataOverrideError extends PlatformError {
  readonly kind = 'metadata_override';
}

/**
 * A script whose decision needed a balance or metadata its plan had not read (the ledger changed in between): the
 * write is planned again (409 CONFLICT if that keeps happening).
 */
export class ScriptReadsChangedError extends PlatformError {
  readonly kind = 'reads_changed';
}

/** A write whose balance expectations (`expect`) did not hold at commit: nothing was written (409 PRECONDITION_FAILED). */
export class PreconditionFailedError extends PlatformError {
  readonly kind = 'precondition_failed';
}

/** A write that would take a balance above a limit of the ledger (400 LIMIT_EXCEEDED; falling below one is INSUFFICIENT_FUND). */
export class LimitExceededError extends PlatformError {
  readonly kind = 'limit_exceeded';
}

/** A post or void of a hold already posted in full, voided or expired (409 PENDING_RESOLVED). */
export class PendingResolvedError extends PlatformError {
  readonly kind = 'pending_resolved';
}

/** A post of a hold at or after its expiry, whatever the sweeper did (409 PENDING_EXPIRED). */
export class PendingExpiredError extends PlatformError {
  readonly kind = 'pending_expired';
}

/** A log import refused: the ledger is not empty, or a line is malformed, breaks the chain or does not replay (400 IMPORT). */
export class ImportError extends PlatformError {
  readonly kind = 'import';
}

/** An operation of the reference platform's API that this platform does not offer (501). */
export class NotImplementedError extends PlatformError {
  readonly kind = 'not_implemented';
}

/** A personal token asked for in an organization without a sandbox environment (400 NO_SANDBOX_ENVIRONMENT). */
export class NoSandboxEnvironmentError extends PlatformError {
  readonly kind = 'no_sandbox_environment';
}

/** An environment that still holds data cannot be deleted (409 ENVIRONMENT_NOT_EMPTY, naming what it holds). */
export class EnvironmentNotEmptyError extends PlatformError {
  readonly kind = 'environment_not_empty';
}

const BY_KIND: Partial<Record<ErrorKind, new (message: string) => PlatformError>> = {
  validation: ValidationError,
  not_found: NotFoundError,
  conflict: ConflictError,
  payload_too_large: PayloadTooLargeError,
  dependency_throttled: DependencyThrottledError,
  insufficient_fund: InsufficientFundError,
  no_postings: NoPostingsError,
  already_reverted: AlreadyRevertedError,
  ledger_already_exists: LedgerAlreadyExistsError,
  schema_not_specified: SchemaNotSpecifiedError,
  ledger_not_found: LedgerNotFoundError,
  bulk_size_exceeded: BulkSizeExceededError,
  not_committed: NotCommittedError,
  outcome_unknown: OutcomeUnknownError,
  compilation_failed: CompilationFailedError,
  metadata_override: MetadataOverrideError,
  reads_changed: ScriptReadsChangedError,
  precondition_failed: PreconditionFailedError,
  limit_exceeded: LimitExceededError,
  pending_resolved: PendingResolvedError,
  pending_expired: PendingExpiredError,
};

/** The error of a kind, as one process raises what another decided (a relayed write's refusal). */
export function errorOfKind(kind: ErrorKind, message: string): PlatformError {
  const ErrorClass = BY_KIND[kind];
  if (!ErrorClass) throw new Error(`no error class for kind ${kind}`);
  return new ErrorClass(message);
}

/** Configuration that cannot work: raised at start-up, never per request. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}
