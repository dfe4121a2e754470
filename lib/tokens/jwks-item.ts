import type { JWK } from 'jose';

/**
 * The published key set lives in one auth-table item so every service reads it with one GetItem. The auth
 * service writes it (`lib/auth/keys/`); the bearer middleware of every service reads it. Private keys are
 * in other items, which the other services' roles cannot read.
 */
export const JWKS_ITEM_KEY = { pk: 'JWKS', sk: 'JWKS' } as const;

export type KeyStatus = 'next' | 'current' | 'previous';

export interface PublishedKey {
  kid: string;
  status: KeyStatus;
  /** Public JWK with kid, alg and use. */
  jwk: JWK;
  createdAt: string;
}

export interface JwksItem {
  pk: 'JWKS';
  sk: 'JWKS';
  /** Increases on every change; rotation writes are conditional on it. */
  version: number;
  keys: PublishedKey[];
  updatedAt: string;
}
