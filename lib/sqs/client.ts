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

/**
 * The client built at its first use, then kept: for a function that may never send. The ledger function relays
 * only busy ledgers' writes, the webhooks API enqueues only on a replay; building the client at start-up cost every
 * cold start about 1 ms of CPU.
 */
export function lazySqsClient(connection: ServiceEndpoint): () => SQSClient {
  let client: SQSClient | undefined;
  return () => {
    client ??= createSqsClient(connection);
    return client;
  };
}
