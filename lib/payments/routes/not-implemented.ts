import type { Hono } from 'hono';
import { NotImplementedError } from '../../errors/index.js';
import type { AppEnv } from '../../http/types.js';

/**
 * The reference payments API's resources that this platform does not serve (connectors and what hangs off
 * them). Their paths answer 501 NOT_IMPLEMENTED in the contract's error shape, with or without a token (they
 * serve no data), so a client of the reference platform learns that the operation is missing rather than that
 * it mistyped a path (404). Payments themselves are served on v3 only; the v1 payment routes are listed here.
 */
const V3_RESOURCES = [
  'accounts',
  'bank-accounts',
  'connectors',
  'conversions',
  'orders',
  'payment-initiations',
  'payment-service-users',
  'pools',
  'tasks',
];
const V1_RESOURCES = [
  'accounts',
  'bank-accounts',
  'connectors',
  'payments',
  'pools',
  'transfer-initiations',
];

export function notImplementedRoutes(app: Hono<AppEnv>): void {
  const refuse = (version: string, resource: string) => () => {
    throw new NotImplementedError(
      `${version} ${resource} are not implemented by this platform (payments are served under /v3/payments)`,
    );
  };
  for (const resource of V3_RESOURCES) {
    app.all(`/v3/${resource}`, refuse('v3', resource));
    app.all(`/v3/${resource}/*`, refuse('v3', resource));
  }
  for (const resource of V1_RESOURCES) {
    app.all(`/${resource}`, refuse('v1', resource));
    app.all(`/${resource}/*`, refuse('v1', resource));
  }
}
