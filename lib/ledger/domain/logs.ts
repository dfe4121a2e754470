import { createHash } from 'node:crypto';
import { canonicalJson } from '../../json/canonical.js';

export type LogType =
  | 'NEW_TRANSACTION'
  | 'SET_METADATA'
  | 'DELETE_METADATA'
  | 'REVERTED_TRANSACTION'
  /** Ours, only in ledgers with PENDING_TRANSFERS: a hold was created; a hold's rest was released. */
  | 'CREATED_PENDING'
  | 'VOIDED_PENDING';

export interface LogEntry {
  id: number;
  type: LogType;
  data: Record<string, unknown>;
  date: string;
  idempotencyKey: string;
  /** The schema version the write was checked against (v2.4), when it named one. */
  schemaVersion?: string;
  /** base64 SHA-256; "" when HASH_LOGS is DISABLED. */
  hash: string;
}

/**
 * The hash chain of HASH_LOGS=SYNC, so a changed or missing entry shows: entry N's hash is SHA-256 over the previous entry's hash
 * (base64, "" for the first entry), a newline, and the canonical JSON (keys sorted) of
 * `{data, date, id, idempotencyKey, type}` of entry N, with `schemaVersion` when the entry has one (so entries
 * written before schemas keep their hashes). `npm run verify-logs` recomputes it.
 */
export function logHash(previousHash: string, entry: Omit<LogEntry, 'hash'>): string {
  const body = canonicalJson({
    data: entry.data,
    date: entry.date,
    id: entry.id,
    idempotencyKey: entry.idempotencyKey,
    ...(entry.schemaVersion !== undefined ? { schemaVersion: entry.schemaVersion } : {}),
    type: entry.type,
  });
  return createHash('sha256').update(`${previousHash}\n${body}`).digest('base64');
}
