import { randomUUID } from 'node:crypto';
import { createDocumentClient } from '../../dynamo/client.js';
import { ConfigurationError } from '../../errors/index.js';
import { createRuntime } from '../../platform/runtime.js';
import { sqsClientFromEnv } from '../../sqs/client.js';
import { BucketTables } from '../store/bucket-tables.js';
import { LedgerLookup } from '../store/ledger-lookup.js';
import { LedgerRegistry } from '../store/registry.js';
import { LedgerWriter } from '../store/writer.js';
import { settleBatch } from './settle.js';
import type { WriterDeps } from './writer-handler.js';

/** How long one invocation keeps draining the queue: well inside the function's timeout (30 s in the stack). */
export const DRAIN_MS = 10_000;

/**
 * What the ledger writer Lambda needs, from its environment: the platform's (`createRuntime`: stage, base URL,
 * tables), `LEDGER_BUCKET_TABLES`, and `LEDGER_INGRESS_QUEUE_URL` (required). Here rather than in the function
 * file so the stack's tests can check the environment it sets passes this validation.
 */
export function writerDepsFromEnv(
  env: NodeJS.ProcessEnv,
): WriterDeps & { ingress: NonNullable<WriterDeps['ingress']> } {
  const runtime = createRuntime(env);
  const queueUrl = env.LEDGER_INGRESS_QUEUE_URL;
  if (!queueUrl) throw new ConfigurationError('LEDGER_INGRESS_QUEUE_URL is required');
  // Amounts are read back as bigint (rule 1), as in the ledger service.
  const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  const buckets = BucketTables.fromEnv(runtime.config.tables.ledger, env.LEDGER_BUCKET_TABLES);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  return {
    doc,
    writer: new LedgerWriter({
      doc,
      tableFor,
      settle: (ledger, table, head) => settleBatch(doc, table, ledger.name, head, Date.now()),
    }),
    lookup: new LedgerLookup(new LedgerRegistry(doc, buckets)),
    tableFor,
    owner: randomUUID(),
    logger: runtime.logger,
    ingress: { sqs: sqsClientFromEnv(env), queueUrl, drainMs: DRAIN_MS },
  };
}
