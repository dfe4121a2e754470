import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type EnvironmentClients,
  environmentClients,
  perEnvironment,
} from './environment-clients.js';
import { localAuthorization } from './local-authorization.js';
import { protoSafeKeys } from './proto-keys.js';
import { sharedEnvironmentCredentials } from './sts-credentials.js';

/** The SDK's region when a caller names none (the configuration always does: AWS_REGION or this). */
const DEFAULT_REGION = 'us-east-1';

/** Where a document client connects: PlatformConfig's `dynamo` (lib/config/env.ts). */
export interface DynamoConnection {
  /** Set for DynamoDB Local; absent in AWS, where the SDK resolves the regional endpoint. */
  endpoint?: string;
  /** With `endpoint`: the placeholder key id, which picks DynamoDB Local's database (default `local`). */
  localAccessKeyId?: string;
  region?: string;
  /**
   * ENVIRONMENT_ACCESS_ROLE_ARN (set by the stack for the functions with an isolation guard): each environment's
   * client uses that role's credentials for the environment (sts-credentials.ts, environment-clients.ts).
   */
  environmentAccessRoleArn?: string;
  /** The embedded local platform's shared HTTP handler (lib/config/env.ts `DynamoSettings` says why). */
  requestHandler?: DynamoDBClientConfig['requestHandler'];
  /** With `endpoint`: requests name the key id instead of being signed (local-authorization.ts). */
  unsigned?: boolean;
}

/** A container's document clients: the function's own, and the one channel to each environment's items. */
export interface DocumentClients {
  /**
   * The function's own client (shared items: the published keys, the platform's directory). Where the guard is on,
   * it reaches no environment's items: those go through `clients`.
   */
  doc: DynamoDBDocumentClient;
  /** Each environment's client (environment-clients.ts): its credentials where the guard is on, its keys checked. */
  clients: EnvironmentClients;
}

/**
 * One set of document clients per container. Against DynamoDB Local the credentials are placeholders (it accepts
 * any), so `npm start` and the tests never look for, or use, real AWS credentials.
 */
export function createDocumentClients(
  connection: DynamoConnection = {},
  options: { bigintNumbers?: boolean } = {},
): DocumentClients {
  const region = connection.region ?? DEFAULT_REGION;
  const config: DynamoDBClientConfig = { region };
  if (connection.endpoint) {
    config.endpoint = connection.endpoint;
    const accessKeyId = connection.localAccessKeyId ?? 'local';
    config.credentials = { accessKeyId, secretAccessKey: 'local' };
    if (connection.unsigned) config.signer = localAuthorization(accessKeyId, region);
  }
  if (connection.requestHandler) config.requestHandler = connection.requestHandler;
  const base = documentClient(config, options);
  const roleArn = connection.environmentAccessRoleArn;
  if (roleArn === undefined) return { doc: base, clients: environmentClients(() => base) };
  const credentials = sharedEnvironmentCredentials({
    roleArn,
    region,
    baseCredentials: base.config.credentials,
  });
  // Each environment's client shares the base client's connections (one pool per container, not per environment).
  const credentialed = perEnvironment((environment) =>
    documentClient(
      {
        ...config,
        credentials: () => credentials.forEnvironment(environment),
        requestHandler: base.config.requestHandler,
      },
      options,
    ),
  );
  return { doc: base, clients: environmentClients(credentialed) };
}

/** The function's own client of `createDocumentClients`, for code that needs no environment's client. */
export function createDocumentClient(
  connection: DynamoConnection = {},
  options: { bigintNumbers?: boolean } = {},
): DynamoDBDocumentClient {
  return createDocumentClients(connection, options).doc;
}

function documentClient(
  config: DynamoDBClientConfig,
  options: { bigintNumbers?: boolean },
): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
    // The ledger stores only integers; reading them as bigint keeps amounts exact.
    ...(options.bigintNumbers
      ? { unmarshallOptions: { wrapNumbers: (value: string) => BigInt(value) } }
      : {}),
  });
  // Callers' map keys named `__proto__` would be dropped by the SDK's (un)marshaller: see proto-keys.ts.
  doc.middlewareStack.use(protoSafeKeys);
  return doc;
}
