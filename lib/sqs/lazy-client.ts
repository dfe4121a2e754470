import type { SQSClient } from '@aws-sdk/client-sqs';
import { lazyLoad } from '../async/lazy-load.js';
import type { ServiceEndpoint } from '../config/env.js';
import { sqsClientConfig } from './client-config.js';

/**
 * The client built at its first use, then kept: for a function that may never send. The ledger function relays
 * only busy ledgers' writes, the webhooks API enqueues only on a replay. The SDK's SQS module is imported then
 * too, so a bundle split into chunks (infra/bundling.ts) loads it only on that first send: evaluating it at
 * start-up cost the ledger function's cold start about 2 ms. No static import of the module may stay in this
 * file, or the bundle would load it at start-up again.
 */
export function lazySqsClient(connection: ServiceEndpoint): () => Promise<SQSClient> {
  return lazyLoad(() =>
    import('@aws-sdk/client-sqs').then(
      ({ SQSClient }) => new SQSClient(sqsClientConfig(connection)),
    ),
  );
}
