import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { currentEnvironment } from './environment-scope.js';

/**
 * A document client whose `send` runs with the credentials of the current environment (environment-scope.ts): the
 * client `clientOf` gives for it, and `base` (the function's own credentials) when no environment is set.
 * Everything else is `base`'s. Only the ledger's stores still take their environment this way (they are built once
 * per function and given a ledger, with its environment, per call); the other services' stores are built over
 * their environment's client (environment-clients.ts).
 */
export function environmentScopedClient(
  base: DynamoDBDocumentClient,
  clientOf: (environment: string) => DynamoDBDocumentClient,
): DynamoDBDocumentClient {
  return new Proxy(base, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (...args: unknown[]) => {
        const environment = currentEnvironment();
        const client = environment === undefined ? target : clientOf(environment);
        return Reflect.apply(client.send, client, args);
      };
    },
  });
}
