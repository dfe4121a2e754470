import type { Hono } from 'hono';
import { NotImplementedError } from '../../errors/index.js';
import type { HonoTypes } from '../../http/types.js';

/**
 * The reference payments API's resources that this platform does not serve (orders, conversions). Their paths
 * answer 501 NOT_IMPLEMENTED in the contract's error shape, with or without a token (they serve no data), so a
 * client of the reference platform learns that the operation is missing rather than that it mistyped a path (404).
 */
const V3_RESOURCES = ['conversions', 'orders'];

/**
 * Resources served in part: their other paths (forwarding to a connector, open-banking links) answer 501 too,
 * registered after the served routes so that those match first.
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
/** v1 resources served in part (none left: kept so that a new partial resource has its place). */
const V1_PARTIAL_RESOURCES: string[] = [];

const refuse = (version: string, resource: string) => () => {
  throw new NotImplementedError(`${version} ${resource} are not implemented by this platform`);
};

const refusePart =
  (resource: string, version = 'v3') =>
  () => {
    throw new NotImplementedError(
      `this ${version} ${resource} operation is not implemented by this platform`,
    );
  };

/** The 501s of resources served in part: after the served routes. */
export function partlyImplementedRoutes(app: Hono<HonoTypes>): void {
  for (const resource of V3_PARTIAL_RESOURCES) {
    app.all(`/v3/${resource}/*`, refusePart(resource));
  }
  for (const resource of V1_PARTIAL_RESOURCES) {
    app.all(`/${resource}/*`, refusePart(resource, 'v1'));
  }
}

export function notImplementedRoutes(app: Hono<HonoTypes>): void {
  for (const resource of V3_RESOURCES) {
    app.all(`/v3/${resource}`, refuse('v3', resource));
    app.all(`/v3/${resource}/*`, refuse('v3', resource));
  }
}
