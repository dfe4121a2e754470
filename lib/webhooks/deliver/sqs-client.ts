import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';

export interface SqsConnection {
  /** Set for the local emulator (fauxqs); absent in AWS, where the SDK resolves the regional endpoint. */
  endpoint?: string;
  region?: string;
}

/**
 * One SQS client per container. Against the local emulator the credentials are placeholders (it accepts any),
 * so `npm start` and the tests never look for, or use, real AWS credentials — as lib/dynamo/client.ts does.
 */
export function createSqsClient(connection: SqsConnection = {}): SQSClient {
  const config: SQSClientConfig = { region: connection.region ?? process.env.AWS_REGION ?? 'us-east-1' };
  if (connection.endpoint) {
    config.endpoint = connection.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return new SQSClient(config);
}

/** `SQS_ENDPOINT` (local emulator) and `AWS_REGION`. */
export function sqsConnectionFromEnv(env: NodeJS.ProcessEnv = process.env): SqsConnection {
  const connection: SqsConnection = {};
  if (env.SQS_ENDPOINT) connection.endpoint = env.SQS_ENDPOINT;
  if (env.AWS_REGION) connection.region = env.AWS_REGION;
  return connection;
}
