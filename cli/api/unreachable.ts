import { CliError } from '../errors.js';

/** Node's network error codes, as a person would say them. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
};

/**
 * What `fetch` throws when no answer came (`TypeError: fetch failed`, the reason buried in `cause`, itself an
 * AggregateError when localhost resolves to both IPv4 and IPv6), or the request timed out, as one line:
 * `cannot reach the platform at http://127.0.0.1:8080: connection refused`.
 */
export function unreachable(baseUrl: string, error: unknown, timeoutMs: number): CliError {
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError')
    return new CliError(`the platform at ${baseUrl} did not answer within ${timeoutMs / 1000} s`);
  return new CliError(`cannot reach the platform at ${baseUrl}: ${reasonOf(error)}`);
}

function reasonOf(error: unknown): string {
  let cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const nested = (cause as { errors?: unknown[] }).errors;
  if (Array.isArray(nested) && nested.length > 0) cause = nested[0];
  const { code, message } = (cause ?? {}) as { code?: string; message?: string };
  return (code && REASONS[code]) ?? message ?? code ?? String(cause);
}
