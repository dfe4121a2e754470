import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { jwksTableLoader } from '../bearer/jwks-table-loader.js';
import { TokenVerifier } from '../bearer/token-verifier.js';
import type { PlatformConfig } from '../config/env.js';
import {
  createDocumentClients,
  type DocumentClients,
  type DynamoConnection,
} from '../dynamo/client.js';
import type { EnvironmentClients } from '../dynamo/environment-clients.js';
import { createLogger, type Logger } from '../observability/logger.js';

/** What every service needs, built once per container (Lambda) or once per process (local). */
export interface ServiceRuntime {
  config: PlatformConfig;
  /** `config.dynamo`: where `doc`, and any other document client of the service, connects. */
  connection: DynamoConnection;
  doc: DynamoDBDocumentClient;
  /** Each environment's client, numbers read as `doc` reads them: what a service builds its stores over. */
  clients: EnvironmentClients;
  /** `doc` reads numbers as bigint (`createRuntime`'s option): `bigintDocumentClient` can then reuse it. */
  bigintNumbers: boolean;
  logger: Logger;
  verifier: TokenVerifier;
}

/**
 * The runtime of a configuration read once (`platformConfigFromVariables`, lib/config/env.ts). `bigintNumbers` for a
 * function whose service reads amounts (the ledger, payments): its one document client then reads numbers as
 * bigint, and the token verifier's key reads go through it too (they read strings only).
 */
export function createRuntime(
  config: PlatformConfig,
  options: { bigintNumbers?: boolean } = {},
): ServiceRuntime {
  const connection = config.dynamo;
  const bigintNumbers = options.bigintNumbers ?? false;
  const { doc, clients } = createDocumentClients(connection, { bigintNumbers });
  return {
    config,
    connection,
    doc,
    clients,
    bigintNumbers,
    logger: createLogger(config.logLevel, undefined, config.logFormat),
    verifier: new TokenVerifier({
      issuer: config.issuer,
      audience: config.audience,
      loadKeys: jwksTableLoader(doc, config.tables.auth),
    }),
  };
}

/**
 * A document client reading numbers as bigint (so amounts stay exact, never a JS number): the runtime's own when it reads them so
 * — one client and one connection pool per container, as in the ledger and payments functions — or a client of
 * its own for a service sharing a plain runtime (the local platform, tests).
 */
export function bigintDocumentClient(runtime: ServiceRuntime): DynamoDBDocumentClient {
  return bigintDocumentClients(runtime).doc;
}

/** The function's own client and the environments' clients, reading numbers as bigint (as above). */
export function bigintDocumentClients(runtime: ServiceRuntime): DocumentClients {
  return runtime.bigintNumbers
    ? runtime
    : createDocumentClients(runtime.connection, { bigintNumbers: true });
}
