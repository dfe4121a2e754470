/**
 * An environment's id: the name its keys, tokens and URLs carry (docs/decisions/tenancy.md, "Environments"). Lower-case
 * letters, digits and inner hyphens, 1–40 characters: safe inside a DynamoDB key (no `#`), a JWT claim, a
 * path segment and an IAM `dynamodb:LeadingKeys` pattern (no `*` or `?`).
 */
export const ENVIRONMENT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** The environment a self-hosted deployment creates at start-up; today's data and clients live in it. */
export const DEFAULT_ENVIRONMENT = 'default';

export function isEnvironmentId(value: unknown): value is string {
  return typeof value === 'string' && ENVIRONMENT_ID_PATTERN.test(value);
}
