import type { PlatformConfig } from '../../config/env.js';
import { createDocumentClient } from '../../dynamo/client.js';
import type { Logger } from '../../observability/logger.js';
import { BucketTables } from '../store/bucket-tables.js';
import { dynamoLedgerTable } from '../store/dynamo-ledger-table.js';
import { LedgerLookup } from '../store/ledger-lookup.js';
import { PendingReads } from '../store/pending-reads.js';
import { LedgerRegistry } from '../store/registry.js';
import { TransactionReads } from '../store/transaction-reads.js';
import { LedgerWriter } from '../store/writer.js';
import { LedgerCommands } from '../write/ledger-commands.js';
import { settleBatch } from '../write/settle.js';
import type { HoldSweepDeps } from './hold-sweep.js';

/**
 * What the hold sweep needs, from the configuration: the one composition of the sweeper Lambda
 * (functions/ledger-holds.ts) and of the local platform's timer (infra/local/hold-sweep-timer.ts). Releases commit
 * directly (retried on contention like any direct write): a sweep is a few writes a minute per ledger, and a release a
 * busy ledger refuses stays due for the next sweep — a hold past its expiry cannot be posted meanwhile. `destroy`
 * closes its DynamoDB client (the local platform's stop; a Lambda container just ends).
 */
export function holdSweepDeps(
  config: PlatformConfig,
  logger?: Logger,
  now: () => number = Date.now,
): HoldSweepDeps & { destroy(): void } {
  // Amounts are read back as bigint (rule 1), as in the ledger service.
  const doc = createDocumentClient(config.dynamo, { bigintNumbers: true });
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  const writer = new LedgerWriter({
    doc,
    tableFor,
    now,
    // A batch a stopped ledger writer left unsettled is settled by the next direct write (write/settle.ts).
    settle: (ledger, table, head) =>
      settleBatch(dynamoLedgerTable(doc, table, ledger), ledger, head, now()),
  });
  const commands = new LedgerCommands({ writer, reads: new TransactionReads(doc, tableFor), now });
  const holds = new PendingReads(doc, tableFor);
  const lookup = new LedgerLookup(new LedgerRegistry(doc, buckets));
  return {
    doc,
    tables: buckets.all(),
    resolve: (environment, name) => lookup.resolve(environment, name),
    sweep: { commands, due: (ledger, at, limit) => holds.due(ledger, at, limit), now },
    ...(logger ? { logger } : {}),
    destroy: () => doc.destroy(),
  };
}
