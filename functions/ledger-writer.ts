// The ledger writer Lambda (group commit): fed by the ledger ingress queue's event source mapping (partial batch
// responses), it decides and commits relayed writes of busy ledgers many per TransactWriteItems, then drains the
// queue itself while messages keep coming.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ledgerWriterConfigFromVariables } from '../lib/config/env.js';
import { writerDeps } from '../lib/ledger/write/writer-env.js';
import { handleIntents } from '../lib/ledger/write/writer-handler.js';
import { withObservability } from '../lib/observability/lambda-handler.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const deps = writerDeps(ledgerWriterConfigFromVariables());

export const handler = withObservability(
  async (event: SQSEvent): Promise<SQSBatchResponse> =>
    handleIntents(
      event.Records.map((r) => ({ messageId: r.messageId, body: r.body })),
      deps,
    ),
);
