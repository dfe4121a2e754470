import { isEnvironmentId } from './environment-id.js';

/**
 * Every partition key of environment data starts with `E#<environment>#` (docs/data-model.md, "Environments"):
 * the one rule that keeps environments apart in shared tables, and the prefix an IAM `dynamodb:LeadingKeys`
 * condition can pin a request's credentials to. Each service's `store/keys.ts` builds its keys through
 * `inEnvironment`; nothing else writes the prefix.
 */
const PREFIX = 'E#';

export function inEnvironment(environment: string, partitionKey: string): string {
  if (!isEnvironmentId(environment)) throw new Error(`not an environment id: ${environment}`);
  return `${PREFIX}${environment}#${partitionKey}`;
}

/** The environment a partition key belongs to (a stream record's, say), or undefined for shared items. */
export function environmentOfKey(partitionKey: string): string | undefined {
  if (!partitionKey.startsWith(PREFIX)) return undefined;
  const end = partitionKey.indexOf('#', PREFIX.length);
  if (end < 0) return undefined;
  const environment = partitionKey.slice(PREFIX.length, end);
  return isEnvironmentId(environment) ? environment : undefined;
}

/** The partition key without its environment prefix (as the service's own keys wrote it). */
export function withoutEnvironment(partitionKey: string): string {
  const environment = environmentOfKey(partitionKey);
  return environment === undefined
    ? partitionKey
    : partitionKey.slice(PREFIX.length + environment.length + 1);
}

/** The IAM `dynamodb:LeadingKeys` pattern matching exactly one environment's partition keys. */
export const leadingKeysPattern = (environment: string): string => `${PREFIX}${environment}#*`;
