import type { SQSClientConfig } from '@aws-sdk/client-sqs';
import type { ServiceEndpoint } from '../config/env.js';

/**
 * An SQS client's configuration, from the function's (`config.sqs`): an endpoint (SQS_ENDPOINT, the local
 * emulator) → that endpoint with placeholder credentials (fauxqs accepts any), so local runs never look for real
 * AWS credentials; otherwise the SDK's regional endpoint and the function's role.
 */
export function sqsClientConfig(connection: ServiceEndpoint): SQSClientConfig {
  const config: SQSClientConfig = { region: connection.region };
  if (connection.endpoint) {
    config.endpoint = connection.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return config;
}
