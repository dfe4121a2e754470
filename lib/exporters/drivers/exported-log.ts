import type { LogEntry } from '../../ledger/domain/logs.js';

/**
 * A log entry as drivers write it: the fields of a log of `GET /v2/{ledger}/logs`, in that order, and its ledger
 * (the reference's exported log).
 */
export function exportedLog(ledger: string, log: LogEntry) {
  return {
    id: log.id,
    type: log.type,
    data: log.data,
    date: log.date,
    hash: log.hash,
    idempotencyKey: log.idempotencyKey,
    ledger,
  };
}
