import { inEnvironment } from '../../environments/key-scope.js';

/**
 * Keys of the auth table (docs/data-model.md). The key set item (`JWKS`) is in lib/tokens/jwks-item.ts: every
 * service's bearer middleware reads it.
 */
export type AuthItemKey = { pk: string; sk: string };

/** A dynamic client of an environment: one item, its secrets (digests) inside it. */
export const clientKey = (environment: string, id: string): AuthItemKey => ({
  pk: inEnvironment(environment, `CLIENT#${id}`),
  sk: 'CLIENT',
});

/**
 * Which environment a client id belongs to (shared, unprefixed): the token endpoint reads it before it knows the
 * environment. Written and deleted in the same transaction as the client.
 */
export const clientDirectoryKey = (id: string): AuthItemKey => ({
  pk: `CLIENT#${id}`,
  sk: 'ENVIRONMENT',
});

/** The gsi1 partition that lists an environment's clients in creation order. */
export const clientListPartition = (environment: string): string =>
  inEnvironment(environment, 'CLIENT');

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

/**
 * A subject token or assertion the token endpoint has accepted (its SHA-256, base64url): each is single-use, and
 * the item lives (TTL `expiresAt`) until the token has expired anyway.
 */
export const usedTokenKey = (digest: string): AuthItemKey => ({
  pk: `USED_TOKEN#${digest}`,
  sk: 'USED_TOKEN',
});
