import type { DocumentedService } from '../document-source.js';
import {
  AUTH_EXAMPLES,
  AUTH_PATH_EXAMPLES,
  PLATFORM_EXAMPLES,
  PLATFORM_PATH_EXAMPLES,
} from './auth.js';
import { LEDGER_EXAMPLES, LEDGER_PATH_EXAMPLES } from './ledger.js';
import { PAYMENTS_EXAMPLES, PAYMENTS_PATH_EXAMPLES } from './payments.js';
import type { OperationExample } from './types.js';
import { WEBHOOKS_EXAMPLES, WEBHOOKS_PATH_EXAMPLES } from './webhooks.js';

/**
 * The documents' examples, kept apart from the routes' `describe(...)` lines: they are only text for the API
 * reference, read by the generator (never bundled into a function), and a test holds every one valid.
 */
const BY_SERVICE: Record<
  DocumentedService,
  { operations: Record<string, OperationExample>; path: Record<string, string | number> }
> = {
  ledger: { operations: LEDGER_EXAMPLES, path: LEDGER_PATH_EXAMPLES },
  webhooks: { operations: WEBHOOKS_EXAMPLES, path: WEBHOOKS_PATH_EXAMPLES },
  payments: { operations: PAYMENTS_EXAMPLES, path: PAYMENTS_PATH_EXAMPLES },
  auth: { operations: AUTH_EXAMPLES, path: AUTH_PATH_EXAMPLES },
  platform: { operations: PLATFORM_EXAMPLES, path: PLATFORM_PATH_EXAMPLES },
};

/** An operation's example body, if it has one. */
export function exampleBody(service: DocumentedService | undefined, operationId: string): unknown {
  return service ? BY_SERVICE[service].operations[operationId]?.body : undefined;
}

/** A parameter's example: the operation's own, else the service's for that path parameter. */
export function exampleParameter(
  service: DocumentedService | undefined,
  operationId: string,
  name: string,
  inPath: boolean,
): string | number | undefined {
  if (!service) return undefined;
  const own = BY_SERVICE[service].operations[operationId]?.parameters?.[name];
  return own ?? (inPath ? BY_SERVICE[service].path[name] : undefined);
}
