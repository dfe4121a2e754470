import { SQSClient } from '@aws-sdk/client-sqs';
import type { ServiceEndpoint } from '../config/env.js';
import { sqsClientConfig } from './client-config.js';

/** The SQS client of a function that sends on most invocations (the webhooks workers, the ledger's writer). */
export function createSqsClient(connection: ServiceEndpoint): SQSClient {
  return new SQSClient(sqsClientConfig(connection));
}
