import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The environment the current request (or the ledger writer's current ledger) works in: set by the bearer
 * middleware once the token is verified, read by the DynamoDB clients of a function with an isolation guard
 * (environment-scoped-client.ts, the ledger only) to pick that environment's credentials. Everything awaited inside `run` sees it;
 * nothing outside does.
 */
const scope = new AsyncLocalStorage<string>();

export function inEnvironmentScope<T>(environment: string, work: () => T): T {
  return scope.run(environment, work);
}

export function currentEnvironment(): string | undefined {
  return scope.getStore();
}
