import type { JWK } from 'jose';
import { JWKS_ITEM_KEY, type JwksItem, type PublishedKey } from '../../tokens/jwks-item.js';

/** A freshly generated signing key pair. */
export interface GeneratedKey {
  kid: string;
  alg: string;
  publicJwk: JWK;
  privateJwk: JWK;
  createdAt: string;
}

const published = (key: GeneratedKey, status: PublishedKey['status']): PublishedKey => ({
  kid: key.kid,
  status,
  jwk: key.publicJwk,
  createdAt: key.createdAt,
});

/**
 * The first key set: a current key that signs at once and a next key that is published, unused, so the first
 * rotation can promote a key every verifier has already seen.
 */
export function initialKeySet(current: GeneratedKey, next: GeneratedKey, now: string): JwksItem {
  return {
    ...JWKS_ITEM_KEY,
    version: 1,
    keys: [published(current, 'current'), published(next, 'next')],
    updatedAt: now,
  };
}

export type RotationDecision =
  | { action: 'promote' }
  | { action: 'add-next' }
  | { action: 'skip'; reason: string };

/**
 * A next key may sign only once it has been published for `minNextAgeSeconds` — at least as long as
 * verifiers cache the key set (API Gateway JWT authorizers: up to 2 h) — so no verifier meets an unknown kid.
 */
export function decideRotation(
  set: JwksItem,
  nowMs: number,
  minNextAgeSeconds: number,
): RotationDecision {
  const next = set.keys.find((k) => k.status === 'next');
  if (!next) return { action: 'add-next' };
  const ageSeconds = (nowMs - Date.parse(next.createdAt)) / 1000;
  if (ageSeconds < minNextAgeSeconds) {
    return {
      action: 'skip',
      reason: `next key ${next.kid} published ${Math.floor(ageSeconds)} s ago, needs ${minNextAgeSeconds} s`,
    };
  }
  return { action: 'promote' };
}

/**
 * Applies a rotation: previous is retired (dropped from the set), current becomes previous (still published
 * so tokens it signed keep verifying until they expire), next becomes current, and `fresh` becomes next.
 */
export function rotate(
  set: JwksItem,
  fresh: GeneratedKey,
  decision: RotationDecision,
  now: string,
): { set: JwksItem; retired: string[] } {
  if (decision.action === 'skip') return { set, retired: [] };
  let keys: PublishedKey[];
  let retired: string[] = [];
  if (decision.action === 'add-next') {
    keys = [...set.keys, published(fresh, 'next')];
  } else {
    retired = set.keys.filter((k) => k.status === 'previous').map((k) => k.kid);
    keys = set.keys
      .filter((k) => k.status !== 'previous')
      .map(
        (k): PublishedKey => ({ ...k, status: k.status === 'current' ? 'previous' : 'current' }),
      );
    keys.push(published(fresh, 'next'));
  }
  const order = { current: 0, next: 1, previous: 2 } as const;
  keys.sort((a, b) => order[a.status] - order[b.status]);
  return { set: { ...set, version: set.version + 1, keys, updatedAt: now }, retired };
}
