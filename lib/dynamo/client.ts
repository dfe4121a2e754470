import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  environmentScopedClient,
  sharedEnvironmentCredentials,
} from './environment-credentials.js';
import { protoSafeKeys } from './proto-keys.js';

/** The SDK's region when a caller names none (the configuration always does: AWS_REGION or this). */
const DEFAULT_REGION = 'us-east-1';

/** Where a document client connects: PlatformConfig's `dynamo` (lib/config/env.ts). */
export interface DynamoConnection {
  /** Set for DynamoDB Local; absent in AWS, where the SDK resolves the regional endpoint. */
  endpoint?: string;
  region?: string;
  /**
   * ENVIRONMENT_ACCESS_ROLE_ARN (set by the stack for the functions with an isolation guard): every call made in an
   * environment's scope uses that role's credentials for the environment (environment-credentials.ts).
   */
  environmentAccessRoleArn?: string;
}

/**
 * One document client per container. Against DynamoDB Local the credentials are placeholders (it accepts any),
 * so `npm start` and the tests never look for, or use, real AWS credentials.
 */
export function createDocumentClient(
  connection: DynamoConnection = {},
  options: { bigintNumbers?: boolean } = {},
): DynamoDBDocumentClient {
  const config: DynamoDBClientConfig = {
    region: connection.region ?? DEFAULT_REGION,
  };
  if (connection.endpoint) {
    config.endpoint = connection.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  const base = documentClient(config, options);
  const roleArn = connection.environmentAccessRoleArn;
  if (roleArn === undefined) return base;
  const credentials = sharedEnvironmentCredentials({
    roleArn,
    region: config.region as string,
    baseCredentials: base.config.credentials,
  });
  // Each environment's client shares the base client's connections (one pool per container, not per environment).
  return environmentScopedClient(base, credentials, (provider) =>
    documentClient(
      { ...config, credentials: provider, requestHandler: base.config.requestHandler },
      options,
    ),
  );
}

function documentClient(
  config: DynamoDBClientConfig,
  options: { bigintNumbers?: boolean },
): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
    // The ledger stores only integers; reading them as bigint keeps amounts exact (rule 1).
    ...(options.bigintNumbers
      ? { unmarshallOptions: { wrapNumbers: (value: string) => BigInt(value) } }
      : {}),
  });
  // Callers' map keys named `__proto__` would be dropped by the SDK's (un)marshaller: see proto-keys.ts.
  doc.middlewareStack.use(protoSafeKeys);
  return doc;
}
