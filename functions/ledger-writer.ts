// The ledger writer Lambda (group commit): fed by the ledger ingress queue's event source mapping (partial batch
// responses), it decides and commits relayed writes of busy ledgers many per TransactWriteItems, then drains the
// queue itself while messages keep coming.
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createDocumentClient } from '../lib/dynamo/client.js';
import { ConfigurationError } from '../lib/errors/index.js';
import { handleIntents, type WriterDeps } from '../lib/ledger/sequencer/writer-handler.js';
import { BucketTables } from '../lib/ledger/store/bucket-tables.js';
import { LedgerLookup } from '../lib/ledger/store/ledger-lookup.js';
import { LedgerRegistry } from '../lib/ledger/store/registry.js';
import { LedgerWriter } from '../lib/ledger/store/writer.js';
import { createRuntime } from '../lib/platform/runtime.js';
import { sqsClientFromEnv } from '../lib/sqs/client.js';

/** How long one invocation keeps draining the queue: well inside the function's timeout. */
const DRAIN_MS = 10_000;

function writerDepsFromEnv(env: NodeJS.ProcessEnv): WriterDeps {
  const runtime = createRuntime(env);
  const queueUrl = env.LEDGER_INGRESS_QUEUE_URL;
  if (!queueUrl) throw new ConfigurationError('LEDGER_INGRESS_QUEUE_URL is required');
  // Amounts are read back as bigint (rule 1), as in the ledger service.
  const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  const buckets = BucketTables.fromEnv(runtime.config.tables.ledger, env.LEDGER_BUCKET_TABLES);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  return {
    doc,
    writer: new LedgerWriter({ doc, tableFor }),
    lookup: new LedgerLookup(new LedgerRegistry(doc, buckets)),
    tableFor,
    owner: randomUUID(),
    logger: runtime.logger,
    ingress: { sqs: sqsClientFromEnv(env), queueUrl, drainMs: DRAIN_MS },
  };
}

// Built once per container: configuration is read and validated at start-up and fails loudly.
const deps = writerDepsFromEnv(process.env);

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> =>
  handleIntents(
    event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
    deps,
  );
