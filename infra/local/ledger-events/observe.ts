import type { PlatformConfig } from '../../../lib/config/env.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { isHoldsPartition } from '../../../lib/ledger/store/keys.js';
import { EarlyAnswers } from '../durability-barrier.js';
import { WriteSignal } from '../write-signal.js';
import { LedgerWrites } from './ledger-writes.js';
import { ObservingHttpHandler } from './observing-handler.js';

/**
 * The embedded platform's configuration with every DynamoDB client of the process on one observing HTTP handler
 * (closed by the platform's stops, after the clients are done) and sending unsigned requests, the writes it tells
 * of, and its count of the answers DynamoDB Local may give before committing.
 */
export function observeLedgerWrites(
  config: PlatformConfig,
  stops: Array<() => Promise<void>>,
): { config: PlatformConfig; writes: LedgerWrites; earlyAnswers: EarlyAnswers } {
  const writes = new LedgerWrites();
  const earlyAnswers = new EarlyAnswers();
  const ledgerTables = new Set(
    new BucketTables(config.tables.ledger, config.ledger.bucketTables).all(),
  );
  const requestHandler = new ObservingHttpHandler(ledgerTables, writes, earlyAnswers);
  // Stops run last-pushed first: this one after the services and workers started later are stopped.
  stops.push(async () => requestHandler.close());
  return {
    config: { ...config, dynamo: { ...config.dynamo, requestHandler, unsigned: true } },
    writes,
    earlyAnswers,
  };
}

/**
 * Told of the process's writes that place or resolve a hold: the only writes that can make one fall due sooner,
 * so the hold sweeper's due timer need not look again after every other write.
 */
export function holdWritesOf(writes: LedgerWrites): WriteSignal {
  const holds = new WriteSignal();
  writes.on((batch) => {
    if (batch.some((w) => isHoldsPartition(w.pk))) holds.notify();
  });
  return holds;
}
