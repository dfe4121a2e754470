import { randomInt } from 'node:crypto';
import { ENVIRONMENT_ID_PATTERN } from '../../environments/environment-id.js';

/**
 * Ids of the organizations and environments the platform service creates (docs/decisions/tenancy.md, "Environments"):
 * `<slug of the name, ≤ 24>-<8 random a-z0-9>`, e.g. `sandbox-k3j9x2q1`. The slug makes an id readable in keys,
 * logs and URLs; the random part makes two creations with the same name distinct, and a collision (36^8 ≈ 2.8e12)
 * is caught by the store's conditional write and answered with a new id.
 */

export const MAX_SLUG_LENGTH = 24;
export const RANDOM_SUFFIX_LENGTH = 8;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A uniformly random `a-z0-9` string (crypto.randomInt, no modulo bias). */
export type RandomText = (length: number) => string;
export const randomText: RandomText = (length) =>
  Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

/**
 * The name as lower-case `a-z 0-9` words joined by single hyphens, at most MAX_SLUG_LENGTH characters; accents
 * dropped (`Équipe` → `equipe`); `fallback` when nothing of the name is left (`日本`, `!!!`).
 */
export function slugOf(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** A new environment id for `name`; it satisfies isEnvironmentId. */
export const newEnvironmentId = (name: string, random: RandomText = randomText): string =>
  `${slugOf(name, 'env')}-${random(RANDOM_SUFFIX_LENGTH)}`;

/** A new organization id for `name`, of the same form. */
export const newOrganizationId = (name: string, random: RandomText = randomText): string =>
  `${slugOf(name, 'org')}-${random(RANDOM_SUFFIX_LENGTH)}`;

/**
 * Organization ids have the environment ids' form (`default`, or a created one): safe in a key, a claim and a
 * path. A path segment of any other form names no organization and is answered without a read.
 */
export const isOrganizationId = (value: unknown): value is string =>
  typeof value === 'string' && ENVIRONMENT_ID_PATTERN.test(value);
