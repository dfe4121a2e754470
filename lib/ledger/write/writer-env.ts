import { randomUUID } from 'node:crypto';
import type { LedgerWriterConfig } from '../../config/env.js';
import { createDocumentClients } from '../../dynamo/client.js';
import { perEnvironment } from '../../dynamo/environment-clients.js';
import { createLogger } from '../../observability/logger.js';
import { createSqsClient } from '../../sqs/client.js';
import { BucketTables } from '../store/bucket-tables.js';
import { LedgerLookup } from '../store/ledger-lookup.js';
import { LedgerRegistry } from '../store/registry.js';
import type { WriterDeps } from './writer-handler.js';

/** How long one invocation keeps draining the queue: well inside the function's timeout (30 s in the stack). */
export const DRAIN_MS = 10_000;

/**
 * What the ledger writer Lambda needs, from its configuration (`ledgerWriterConfigFromVariables`: the services' tables
 * and buckets, and the ingress queue it cannot do without). Its one composition, used by functions/ledger-writer.ts,
 * which the local platform runs as its worker processes; the stack's tests check the environment it sets.
 */
export function writerDeps(
  config: LedgerWriterConfig,
): WriterDeps & { ingress: NonNullable<WriterDeps['ingress']> } {
  // Amounts are read back as bigint so they stay exact, as in the ledger service.
  const { clients } = createDocumentClients(config.dynamo, { bigintNumbers: true });
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  const sqs = createSqsClient(config.sqs);
  return {
    // Each environment's client (its credentials where the isolation guard is on, its keys checked everywhere).
    scopeFor: perEnvironment((environment) => {
      const doc = clients.forEnvironment(environment);
      return { doc, lookup: new LedgerLookup(new LedgerRegistry(doc, buckets)) };
    }),
    tableFor,
    owner: randomUUID(),
    logger: createLogger(config.logLevel, undefined, config.logFormat),
    ingress: { sqs, queueUrl: config.queues['ledger-ingress'], drainMs: DRAIN_MS },
    replies: sqs,
  };
}
