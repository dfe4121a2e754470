import type { LogEntry } from '../../ledger/domain/logs.js';

/** One batch of a ledger's log, consecutive entries in log order. */
export interface ExportBatch {
  environment: string;
  ledger: string;
  logs: LogEntry[];
}

/**
 * Where a pipeline's batches go. `send` resolves once the destination holds the whole batch, and throws
 * `DriverError` otherwise; a batch may be sent again (at least once), so a driver keeps a resent batch harmless
 * (the log ids are in what it sends).
 */
export interface Driver {
  send(batch: ExportBatch): Promise<void>;
}

/** A batch the destination did not take; the message is what the pipeline's state shows. */
export class DriverError extends Error {
  override readonly name = 'DriverError';
}
