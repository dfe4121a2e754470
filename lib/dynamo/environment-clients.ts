import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { prefixGuarded } from './prefix-guard.js';
import { MAX_ENVIRONMENTS } from './sts-credentials.js';

/**
 * The one channel from a service to its environment's items: a document client per environment, handed to the
 * stores of that environment (each service's `…For(environment)`), with the environment's credentials where the
 * isolation guard is on (sts-credentials.ts) and the guard's key rule checked on every call (prefix-guard.ts),
 * with or without IAM. Nothing is read from the async context.
 */
export interface EnvironmentClients {
  forEnvironment(environment: string): DynamoDBDocumentClient;
}

/**
 * One value per environment, built at first use and kept for the most recent `MAX_ENVIRONMENTS` (dropped, not
 * destroyed: the clients share their base client's connections).
 */
export function perEnvironment<T>(build: (environment: string) => T): (environment: string) => T {
  const values = new Map<string, T>();
  return (environment) => {
    let value = values.get(environment);
    if (value === undefined) value = build(environment);
    else values.delete(environment); // re-inserted last: the map's order is the order of use
    values.set(environment, value);
    if (values.size > MAX_ENVIRONMENTS) values.delete(values.keys().next().value!);
    return value;
  };
}

/** The checked clients over `clientOf` (the environment's credentialed client, or the one base client). */
export function environmentClients(
  clientOf: (environment: string) => DynamoDBDocumentClient,
): EnvironmentClients {
  return {
    forEnvironment: perEnvironment((environment) =>
      prefixGuarded(clientOf(environment), environment),
    ),
  };
}
