import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import type { ServiceEndpoint } from '../config/env.js';

/**
 * The SQS client of a function, from its configuration (`config.sqs`): an endpoint (SQS_ENDPOINT, the local
 * emulator) → that endpoint with placeholder credentials (fauxqs accepts any), so local runs never look for real
 * AWS credentials; otherwise the SDK's regional endpoint and the function's role.
 */
export function createSqsClient(connection: ServiceEndpoint): SQSClient {
  const config: SQSClientConfig = { region: connection.region };
  if (connection.endpoint) {
    config.endpoint = connection.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return new SQSClient(config);
}
