import { createHash } from 'node:crypto';

/**
 * Keys of the webhooks table's configuration items (docs/data-model.md).
 *
 * - Config: `CONFIG#<id>` / `CONFIG`, on gsi1 `CONFIGS` / `<sortable createdAt>#<id>` (the list, newest first).
 * - Endpoint index item: `CONFIGS#endpoint=<base64url SHA-256 of the endpoint>` / `<sortable createdAt>#<id>`,
 *   holding `configId`: the `endpoint` filter is one key range (endpoints are up to 2048 characters, too long
 *   for a key, hence the digest). It moves with the endpoint, in the config's transaction.
 * - Subscription item: `SUB#<event kind>` / `<config id>` with `{configId, active}`, one per kind the config
 *   subscribes to, written in the config's transaction on every change: the dispatcher finds the configs of a
 *   kind with one Query (and keeps those with `active`).
 * - Subscriptions version: `SUBSCRIPTIONS` / `VERSION` with a counter `n`, added to in the transaction of every
 *   change of subscription items: the dispatcher reads it (strongly consistent) once per batch and queries a
 *   kind's configs again whenever it moved, so a config change that has returned applies to every event
 *   dispatched after it.
 */
export const configKey = (id: string) => ({ pk: `CONFIG#${id}`, sk: 'CONFIG' });

export const CONFIGS_BY_CREATION = 'CONFIGS';

export const creationSort = (sortableCreatedAt: string, id: string) => `${sortableCreatedAt}#${id}`;

export const endpointDigest = (endpoint: string): string =>
  createHash('sha256').update(endpoint, 'utf8').digest('base64url');

export const endpointPartition = (digest: string): string => `CONFIGS#endpoint=${digest}`;

export const subscriptionPartition = (kind: string): string => `SUB#${kind}`;

export const subscriptionKey = (kind: string, configId: string) => ({
  pk: subscriptionPartition(kind),
  sk: configId,
});

export const subscriptionsVersionKey = { pk: 'SUBSCRIPTIONS', sk: 'VERSION' } as const;
