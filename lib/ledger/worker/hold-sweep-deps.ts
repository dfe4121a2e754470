import type { PlatformConfig } from '../../config/env.js';
import { createDocumentClients } from '../../dynamo/client.js';
import { perEnvironment } from '../../dynamo/environment-clients.js';
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
import type { SweepParts } from '../write/sweep-holds.js';
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
  // Amounts are read back as bigint so they stay exact, as in the ledger service.
  const { doc, clients } = createDocumentClients(config.dynamo, { bigintNumbers: true });
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  const tableFor = (bucket: string) => buckets.tableFor(bucket);
  return {
    doc,
    tables: buckets.all(),
    // Each environment's stores over its own client (its credentials where the guard is on, its keys checked).
    scopeFor: perEnvironment((environment) => {
      const envDoc = clients.forEnvironment(environment);
      const writer = new LedgerWriter({
        doc: envDoc,
        tableFor,
        now,
        // A batch a stopped ledger writer left unsettled is settled by the next direct write (write/settle.ts).
        settle: (ledger, table, head) =>
          settleBatch(dynamoLedgerTable(envDoc, table, ledger), ledger, head, now()),
      });
      const commands = new LedgerCommands({
        writer,
        reads: new TransactionReads(envDoc, tableFor),
        now,
      });
      const holds = new PendingReads(envDoc, tableFor);
      const lookup = new LedgerLookup(new LedgerRegistry(envDoc, buckets));
      return {
        resolve: (name: string) => lookup.resolve(environment, name),
        sweep: {
          commands,
          due: (ledger, at, limit) => holds.due(ledger, at, limit),
          now,
        } satisfies SweepParts,
      };
    }),
    now,
    ...(logger ? { logger } : {}),
    destroy: () => doc.destroy(),
  };
}
