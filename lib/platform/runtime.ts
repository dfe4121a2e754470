import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { jwksTableLoader } from '../bearer/jwks-table-loader.js';
import { TokenVerifier } from '../bearer/token-verifier.js';
import { type PlatformConfig, platformConfigFromEnv } from '../config/env.js';
import {
  connectionFromEnv,
  createDocumentClient,
  type DynamoConnection,
} from '../dynamo/client.js';
import { createLogger, type Logger, logLevelFromEnv } from '../observability/logger.js';

/** What every service needs, built once per container (Lambda) or once per process (local). */
export interface ServiceRuntime {
  config: PlatformConfig;
  env: NodeJS.ProcessEnv;
  connection: DynamoConnection;
  doc: DynamoDBDocumentClient;
  logger: Logger;
  verifier: TokenVerifier;
}

export function createRuntime(env: NodeJS.ProcessEnv = process.env): ServiceRuntime {
  const config = platformConfigFromEnv(env);
  const connection = connectionFromEnv(env);
  const doc = createDocumentClient(connection);
  return {
    config,
    env,
    connection,
    doc,
    logger: createLogger(logLevelFromEnv(env)),
    verifier: new TokenVerifier({
      issuer: config.issuer,
      audience: config.audience,
      loadKeys: jwksTableLoader(doc, config.tables.auth),
    }),
  };
}
