import { hashedClientId } from '../domain/client-id-hash.js';
import { addressGroup, type ThrottlePolicy, windowStart } from '../domain/throttle.js';

/**
 * Keys of the auth table (docs/data-model.md). The key set item (`JWKS`) is in lib/bearer/jwks-item.ts: every
 * service's bearer middleware reads it.
 */
export type AuthItemKey = { pk: string; sk: string };

/** A dynamic client: one item, its secrets (digests) inside it. */
export const clientKey = (id: string): AuthItemKey => ({ pk: `CLIENT#${id}`, sk: 'CLIENT' });

/** The gsi1 partition that lists clients in creation order. */
export const CLIENT_LIST_PARTITION = 'CLIENT';

export const clientListSort = (createdAt: string, id: string) => `${createdAt}#${id}`;

/** A private signing key, readable by the auth service's role only. */
export const privateKeyKey = (kid: string): AuthItemKey => ({
  pk: `SIGNING_KEY#${kid}`,
  sk: 'PRIVATE',
});

/**
 * The failure counters of one token request's budgets in one window: the client's and the source's. Client ids
 * are hashed into the key so that any presented id, however long or strange, makes a small, valid key.
 */
export function throttleKeys(
  clientId: string,
  address: string,
  nowMs: number,
  policy: Pick<ThrottlePolicy, 'windowSeconds'>,
): { client: AuthItemKey; source: AuthItemKey } {
  const sk = `W#${windowStart(nowMs, policy.windowSeconds)}`;
  const client = hashedClientId(clientId);
  return {
    client: { pk: `THROTTLE#client#${client}`, sk },
    source: { pk: `THROTTLE#source#${client}#${addressGroup(address)}`, sk },
  };
}
