import { createHash } from 'node:crypto';
import { environmentOfKey, inEnvironment } from '../../environments/key-scope.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { DeliveryStatus } from '../domain/delivery.js';

/**
 * Every key of the webhooks table (docs/data-model.md): configurations, their subscriptions, deliveries, their
 * attempts and filter index items, and the answers of idempotent replays. Only the stores read this file.
 *
 * Every partition key, of the table and of gsi1, starts with `E#<environment>#` (`inEnvironment`,
 * docs/decisions/tenancy.md "Environments"): an environment's configs, subscriptions, deliveries and replay answers
 * are partitions of their own, so no key another environment can build ever reads them. The layouts below are
 * written without that prefix.
 */

// ---- Configurations ---------------------------------------------------------------------------------------
//
// - Config: `CONFIG#<id>` / `CONFIG`, on gsi1 `CONFIGS` / `<sortable createdAt>#<id>` (the list, newest first).
// - Endpoint index item: `CONFIGS#endpoint=<base64url SHA-256 of the endpoint>` / `<sortable createdAt>#<id>`,
//   holding `configId`: the `endpoint` filter is one key range (endpoints are up to 2048 characters, too long
//   for a key, hence the digest). It moves with the endpoint, in the config's transaction.
// - Subscription item: `SUB#<event kind>` / `<config id>` with `{configId, active}`, one per kind the config
//   subscribes to, written in the config's transaction on every change: the dispatcher finds the configs of a
//   kind in an environment with one Query (and keeps those with `active`).
// - Subscriptions version: `SUBSCRIPTIONS` / `VERSION` with a counter `n`, added to in the transaction of every
//   change of subscription items of its environment: the dispatcher reads it (strongly consistent) once per
//   batch and environment and queries a kind's configs again whenever it moved, so a config change that has
//   returned applies to every event dispatched after it.

export const configKey = (environment: string, id: string) => ({
  pk: inEnvironment(environment, `CONFIG#${id}`),
  sk: 'CONFIG',
});

/** gsi1: an environment's configs, newest first. */
export const configsByCreation = (environment: string): string =>
  inEnvironment(environment, 'CONFIGS');

export const creationSort = (sortableCreatedAt: string, id: string) => `${sortableCreatedAt}#${id}`;

export const endpointDigest = (endpoint: string): string =>
  createHash('sha256').update(endpoint, 'utf8').digest('base64url');

export const endpointPartition = (environment: string, digest: string): string =>
  inEnvironment(environment, `CONFIGS#endpoint=${digest}`);

export const subscriptionPartition = (environment: string, kind: string): string =>
  inEnvironment(environment, `SUB#${kind}`);

export const subscriptionKey = (environment: string, kind: string, configId: string) => ({
  pk: subscriptionPartition(environment, kind),
  sk: configId,
});

/**
 * A rate limit's window: `CONFIG#<id>` / `RATE#<epoch second>` with a counter `n` (store/rate-windows.ts), beside
 * its config, removed by TTL two minutes after its second.
 */
export const rateWindowKey = (environment: string, configId: string, second: number) => ({
  pk: inEnvironment(environment, `CONFIG#${configId}`),
  sk: `RATE#${second}`,
});

export const subscriptionsVersionKey = (environment: string) => ({
  pk: inEnvironment(environment, 'SUBSCRIPTIONS'),
  sk: 'VERSION',
});

// ---- Deliveries and attempts ------------------------------------------------------------------------------

/** The sort key every listing of deliveries uses (gsi1 for the unfiltered list, the index items for the rest). */
export const deliverySortKey = (createdAt: string, id: string): string =>
  `${sortableInstant(parseInstant(createdAt, 'createdAt'))}#${id}`;

export const deliveryKeys = {
  delivery: (environment: string, id: string) => ({
    pk: inEnvironment(environment, `DELIVERY#${id}`),
    sk: 'DELIVERY',
  }),
  /** gsi1: all deliveries newest first, `gsi1sk` = `<sortable createdAt>#<id>` (fixed width: text order is time order). */
  list: (environment: string): string => inEnvironment(environment, 'DELIVERIES'),
  listSort: deliverySortKey,
  attempt: (environment: string, id: string, attempt: number) => ({
    pk: inEnvironment(environment, `DELIVERY#${id}`),
    sk: `ATTEMPT#${String(attempt).padStart(4, '0')}`,
  }),
};

// ---- Filter index items of deliveries ---------------------------------------------------------------------
//
// The list's `configId` and `status` filters, alone or together, are each one key range, and the time range is
// a range of the sort key inside it — never a scan.
//
// - `DELIVERIES#config=<configId>` / `<sortable createdAt>#<id>`: a config's deliveries (never moves).
// - `DELIVERIES#status=<status>` / same sort key: deliveries in a status.
// - `DELIVERIES#config=<configId>#status=<status>` / same sort key: a config's deliveries in a status. Its
//   `pending` partition is also what cancels a config's pending deliveries when the config is deleted or
//   deactivated.
//
// Each holds only `deliveryId`. They are written with the delivery, and a status change moves the two that name
// the status, in the same TransactWriteItems as the delivery's own change.

export interface DeliveryFilterKey {
  configId?: string;
  status?: DeliveryStatus;
}

/** The index partition of a filter with at least one of `configId`, `status`. */
export function filterPartition(
  environment: string,
  { configId, status }: DeliveryFilterKey,
): string {
  if (configId === undefined && status === undefined)
    throw new Error('filterPartition needs configId or status');
  return inEnvironment(
    environment,
    [
      'DELIVERIES',
      ...(configId !== undefined ? [`config=${configId}`] : []),
      ...(status !== undefined ? [`status=${status}`] : []),
    ].join('#'),
  );
}

/** The partitions that name a status: moved when the status changes. */
export const statusPartitions = (
  environment: string,
  configId: string,
  status: DeliveryStatus,
): string[] => [
  filterPartition(environment, { status }),
  filterPartition(environment, { configId, status }),
];

/** Every index partition of a delivery. */
export const indexPartitions = (
  environment: string,
  configId: string,
  status: DeliveryStatus,
): string[] => [
  filterPartition(environment, { configId }),
  ...statusPartitions(environment, configId, status),
];

/**
 * The environment whose `pending` status partition `pk` is, or undefined for any other key: what the local
 * platform's start-up finds pending deliveries of every environment by (store/pending-everywhere.ts).
 */
export function pendingPartitionEnvironment(pk: string): string | undefined {
  const environment = environmentOfKey(pk);
  return environment !== undefined && pk === filterPartition(environment, { status: 'pending' })
    ? environment
    : undefined;
}

// ---- Replay requests --------------------------------------------------------------------------------------

/** The answer of a replay sent with an `Idempotency-Key`: `REPLAYREQ#<SHA-256 of the key>` / `REQUEST`. */
export const replayRequestKey = (environment: string, idempotencyKey: string) => ({
  pk: inEnvironment(
    environment,
    `REPLAYREQ#${createHash('sha256').update(idempotencyKey).digest('base64url')}`,
  ),
  sk: 'REQUEST',
});
