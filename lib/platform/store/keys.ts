/**
 * Keys of the platform table (docs/data-model.md, "Platform"). Only lib/platform/store reads this file.
 *
 * - Organization: `ORG#<org>` / `ORG`.
 * - An organization's environment: `ORG#<org>` / `ENV#<env>` (an organization's environments: one Query).
 * - Environment by id: `ENV#<env>` / `ENV`, with `state` `active` or `deleted`: a deleted environment keeps its
 *   item, so its id (the prefix of its data's keys) is never given again.
 * - Member: `ORG#<org>` / `MEMBER#<email>`; the same membership seen from the person: `PERSON#<email>` /
 *   `MEMBERSHIP#<org>`. Both are written and deleted in one transaction.
 * - Person profile: `PERSON#<email>` / `PROFILE`.
 *
 * Emails are lower-cased and checked before they reach a key (domain/directory.ts, normaliseEmail).
 */
export type PlatformItemKey = { pk: string; sk: string };

export const organizationKey = (org: string): PlatformItemKey => ({ pk: `ORG#${org}`, sk: 'ORG' });

export const organizationPartition = (org: string): string => `ORG#${org}`;

export const ENVIRONMENT_SORT_PREFIX = 'ENV#';
export const MEMBER_SORT_PREFIX = 'MEMBER#';
export const MEMBERSHIP_SORT_PREFIX = 'MEMBERSHIP#';

export const organizationEnvironmentKey = (org: string, env: string): PlatformItemKey => ({
  pk: `ORG#${org}`,
  sk: `${ENVIRONMENT_SORT_PREFIX}${env}`,
});

export const environmentKey = (env: string): PlatformItemKey => ({ pk: `ENV#${env}`, sk: 'ENV' });

export const memberKey = (org: string, email: string): PlatformItemKey => ({
  pk: `ORG#${org}`,
  sk: `${MEMBER_SORT_PREFIX}${email}`,
});

export const personPartition = (email: string): string => `PERSON#${email}`;

export const membershipKey = (email: string, org: string): PlatformItemKey => ({
  pk: personPartition(email),
  sk: `${MEMBERSHIP_SORT_PREFIX}${org}`,
});

export const profileKey = (email: string): PlatformItemKey => ({
  pk: personPartition(email),
  sk: 'PROFILE',
});
