import { BucketTables } from '../../ledger/store/bucket-tables.js';
import { LedgerLookup } from '../../ledger/store/ledger-lookup.js';
import { LogReads } from '../../ledger/store/log-reads.js';
import { LedgerRegistry } from '../../ledger/store/registry.js';
import { bigintDocumentClient, type ServiceRuntime } from '../../runtime/runtime.js';
import type { DriverSettings } from '../drivers/registry.js';
import { PipelineWorker } from './drain-pipeline.js';

/** The pipeline worker of a runtime's configuration: the Lambda's and the local poller's. */
export function createPipelineWorker(
  runtime: ServiceRuntime,
  options: { now?: () => number; drivers?: Partial<DriverSettings> } = {},
): PipelineWorker {
  const { config } = runtime;
  // Log amounts are read back as bigint, as the ledger reads them.
  const doc = bigintDocumentClient(runtime);
  const buckets = new BucketTables(config.tables.ledger, config.ledger.bucketTables);
  const now = options.now ?? Date.now;
  return new PipelineWorker({
    doc,
    table: config.tables.ledger,
    lookup: new LedgerLookup(new LedgerRegistry(doc, buckets), now),
    logs: new LogReads(doc, (bucket) => buckets.tableFor(bucket), config.ledgerScanReads),
    drivers: {
      allowLoopback: config.webhooks.allowLoopback,
      awsRegion: config.awsRegion,
      // The local platform's S3 emulator: where an s3 exporter writes unless it names another endpoint.
      ...(config.exports.localS3
        ? {
            s3Endpoint: config.exports.localS3.endpoint,
            s3Credentials: config.exports.localS3.credentials,
          }
        : {}),
      ...options.drivers,
    },
    now,
  });
}
