import type { Hono } from 'hono';
import { NotImplementedError } from '../../errors/index.js';
import type { AppEnv } from '../../http/types.js';

/**
 * The reference payments API's resources that this platform does not serve (orders, conversions, payment
 * initiations, v1). Their paths answer 501 NOT_IMPLEMENTED in the contract's error shape, with or without a token (they
 * serve no data), so a client of the reference platform learns that the operation is missing rather than that
 * it mistyped a path (404). Payments themselves are served on v3 only; the v1 payment routes are listed here.
 */
const V3_RESOURCES = ['conversions', 'orders'];

/**
 * Resources served in part: their other paths (forwarding to a connector, open-banking links, deletion of a user)
 * answer 501 too, registered after the served routes so that those match first.
 */
const V3_PARTIAL_RESOURCES = [
  'accounts',
  'bank-accounts',
  'connectors',
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

const refuse = (version: string, resource: string) => () => {
  throw new NotImplementedError(`${version} ${resource} are not implemented by this platform`);
};

const refusePart = (resource: string) => () => {
  throw new NotImplementedError(
    `this v3 ${resource} operation is not implemented by this platform`,
  );
};

/** The 501s of resources served in part: after the served routes. */
export function partlyImplementedRoutes(app: Hono<AppEnv>): void {
  for (const resource of V3_PARTIAL_RESOURCES) {
    app.all(`/v3/${resource}/*`, refusePart(resource));
  }
}

export function notImplementedRoutes(app: Hono<AppEnv>): void {
  for (const resource of V3_RESOURCES) {
    app.all(`/v3/${resource}`, refuse('v3', resource));
    app.all(`/v3/${resource}/*`, refuse('v3', resource));
  }
  for (const resource of V1_RESOURCES) {
    app.all(`/${resource}`, refuse('v1', resource));
    app.all(`/${resource}/*`, refuse('v1', resource));
  }
}
