/**
 * The scope rule of docs/api.md §1: `<service>:read` allows GET and HEAD, `<service>:write` allows everything
 * (write implies read).
 */

export const SERVICES = ['ledger', 'webhooks', 'payments', 'auth'] as const;
export type Service = (typeof SERVICES)[number];

export const ALL_SCOPES: readonly string[] = SERVICES.flatMap((s) => [`${s}:read`, `${s}:write`]);

/** Scopes of a client created without `scopes`: everything but the auth service's own. */
export const DEFAULT_CLIENT_SCOPES: readonly string[] = ALL_SCOPES.filter(
  (s) => !s.startsWith('auth:'),
);

/** An OAuth scope-token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * POSTs that only read, as the reference scopes them (its SDK asks a `read` token for them): running a ledger
 * query template.
 */
const READING_POSTS: Partial<Record<Service, RegExp>> = {
  ledger: /\/v2\/[^/]+\/queries\/[^/]+\/run$/,
};

export function requiredScope(service: Service, method: string, path = ''): string {
  const m = method.toUpperCase();
  const reads =
    READ_METHODS.has(m) || (m === 'POST' && READING_POSTS[service]?.test(path) === true);
  return `${service}:${reads ? 'read' : 'write'}`;
}

export function grants(held: ReadonlySet<string>, required: string): boolean {
  if (held.has(required)) return true;
  const [service, level] = required.split(':');
  return level === 'read' && held.has(`${service}:write`);
}
