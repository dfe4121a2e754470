import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { jwksTableLoader } from '../bearer/jwks-table-loader.js';
import { TokenVerifier } from '../bearer/token-verifier.js';
import type { PlatformConfig } from '../config/env.js';
import { createDocumentClient, type DynamoConnection } from '../dynamo/client.js';
import { createLogger, type Logger } from '../observability/logger.js';

/** What every service needs, built once per container (Lambda) or once per process (local). */
export interface ServiceRuntime {
  config: PlatformConfig;
  /** `config.dynamo`: where `doc`, and any other document client of the service, connects. */
  connection: DynamoConnection;
  doc: DynamoDBDocumentClient;
  logger: Logger;
  verifier: TokenVerifier;
}

/** The runtime of a configuration read once (`platformConfigFromEnv`, lib/config/env.ts). */
export function createRuntime(config: PlatformConfig): ServiceRuntime {
  const connection = config.dynamo;
  const doc = createDocumentClient(connection);
  return {
    config,
    connection,
    doc,
    logger: createLogger(config.logLevel),
    verifier: new TokenVerifier({
      issuer: config.issuer,
      audience: config.audience,
      loadKeys: jwksTableLoader(doc, config.tables.auth),
    }),
  };
}
