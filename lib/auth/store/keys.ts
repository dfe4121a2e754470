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
 * A failure counter of the token endpoint (lib/auth/store/throttle-store.ts) in the window starting at
 * `windowStart` (epoch seconds): a client's, over all sources, or one source's (the client from one address
 * group). `clientHash` is the presented id hashed, so any id, however long or strange, makes a small, valid key.
 */
export const throttleClientKey = (clientHash: string, windowStart: number): AuthItemKey => ({
  pk: `THROTTLE#client#${clientHash}`,
  sk: `W#${windowStart}`,
});

export const throttleSourceKey = (
  clientHash: string,
  addressGroup: string,
  windowStart: number,
): AuthItemKey => ({ pk: `THROTTLE#source#${clientHash}#${addressGroup}`, sk: `W#${windowStart}` });
