import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type ErrorKind, InsufficientScopeError, PlatformError } from '../errors/index.js';
import type { HonoTypes } from './types.js';

/** The only table from failure kind to the contract's errorCode and status (docs/api.md §1.1). */
const CONTRACT: Record<ErrorKind, { status: ContentfulStatusCode; errorCode: string }> = {
  validation: { status: 400, errorCode: 'VALIDATION' },
  not_found: { status: 404, errorCode: 'NOT_FOUND' },
  conflict: { status: 409, errorCode: 'CONFLICT' },
  payload_too_large: { status: 413, errorCode: 'VALIDATION' },
  invalid_token: { status: 401, errorCode: 'UNAUTHORIZED' },
  insufficient_scope: { status: 403, errorCode: 'FORBIDDEN' },
  forbidden: { status: 403, errorCode: 'FORBIDDEN' },
  dependency_throttled: { status: 503, errorCode: 'INTERNAL' },
  insufficient_fund: { status: 400, errorCode: 'INSUFFICIENT_FUND' },
  no_postings: { status: 400, errorCode: 'NO_POSTINGS' },
  already_reverted: { status: 400, errorCode: 'ALREADY_REVERT' },
  ledger_already_exists: { status: 400, errorCode: 'LEDGER_ALREADY_EXISTS' },
  schema_already_exists: { status: 400, errorCode: 'SCHEMA_ALREADY_EXISTS' },
  schema_not_specified: { status: 400, errorCode: 'SCHEMA_NOT_SPECIFIED' },
  ledger_not_found: { status: 404, errorCode: 'LEDGER_NOT_FOUND' },
  bulk_size_exceeded: { status: 413, errorCode: 'BULK_SIZE_EXCEEDED' },
  not_committed: { status: 503, errorCode: 'INTERNAL' },
  outcome_unknown: { status: 504, errorCode: 'INTERNAL' },
  compilation_failed: { status: 400, errorCode: 'COMPILATION_FAILED' },
  metadata_override: { status: 400, errorCode: 'METADATA_OVERRIDE' },
  reads_changed: { status: 409, errorCode: 'CONFLICT' },
  precondition_failed: { status: 409, errorCode: 'PRECONDITION_FAILED' },
  limit_exceeded: { status: 400, errorCode: 'LIMIT_EXCEEDED' },
  pending_resolved: { status: 409, errorCode: 'PENDING_RESOLVED' },
  pending_expired: { status: 409, errorCode: 'PENDING_EXPIRED' },
  import: { status: 400, errorCode: 'IMPORT' },
  not_implemented: { status: 501, errorCode: 'NOT_IMPLEMENTED' },
  no_sandbox_environment: { status: 400, errorCode: 'NO_SANDBOX_ENVIRONMENT' },
  environment_not_empty: { status: 409, errorCode: 'ENVIRONMENT_NOT_EMPTY' },
};

/** The contract's code and status for a platform error (bulk results report them per element). */
export function contractError(err: PlatformError): {
  status: ContentfulStatusCode;
  errorCode: string;
} {
  return CONTRACT[err.kind];
}

export interface ErrorBody {
  errorCode: string;
  errorMessage: string;
  details?: string;
}

export function errorResponse(c: Context<HonoTypes>, err: unknown): Response {
  if (err instanceof PlatformError) {
    const { status, errorCode } = CONTRACT[err.kind];
    if (err.kind === 'invalid_token') {
      c.header(
        'WWW-Authenticate',
        `Bearer error="invalid_token", error_description="${headerSafe(err.message)}"`,
      );
    } else if (err instanceof InsufficientScopeError) {
      c.header(
        'WWW-Authenticate',
        `Bearer error="insufficient_scope", scope="${err.requiredScope}"`,
      );
    } else if (err.kind === 'dependency_throttled' || err.kind === 'not_committed') {
      c.header('Retry-After', '1');
    }
    const body: ErrorBody = { errorCode, errorMessage: err.message };
    if (err.details !== undefined) body.details = err.details;
    return c.json(body, status);
  }
  // Hono's own exceptions (e.g. from built-in middleware) carry a status but no contract code.
  if (err instanceof HTTPException && err.status < 500) {
    return c.json(
      { errorCode: 'VALIDATION', errorMessage: err.message || 'invalid request' },
      err.status,
    );
  }
  // Anything else is a bug or an outage: log it in full, tell the caller nothing about internals.
  const requestId = c.get('requestId');
  c.get('logger')?.log('error', 'unhandled error', {
    requestId,
    error:
      err instanceof Error
        ? { name: err.name, message: err.message, stack: err.stack }
        : String(err),
  });
  return c.json(
    { errorCode: 'INTERNAL', errorMessage: `internal error (request id ${requestId})` },
    500,
  );
}

export function notFoundResponse(c: Context<HonoTypes>): Response {
  return c.json(
    { errorCode: 'NOT_FOUND', errorMessage: `no route for ${c.req.method} ${c.req.path}` },
    404,
  );
}

/** Header parameter values are quoted strings: keep them printable ASCII without quotes or backslashes. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]|["\\]/g, '');
}
