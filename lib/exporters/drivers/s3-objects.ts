import { parquetWriteBuffer } from 'hyparquet-writer';
import { stringifyJson } from '../../json/bigint-json.js';
import type { LogEntry } from '../../ledger/domain/logs.js';
import type { ExportBatch } from './driver.js';
import { exportedLog } from './exported-log.js';

export type ObjectFormat = 'parquet' | 'ndjson';

const pad = (id: number) => String(id).padStart(15, '0');

/**
 * Where a batch goes: `<prefix>environment=<env>/ledger=<ledger>/date=<YYYY-MM-DD>/<first>-<last>.<format>`, Hive
 * style so Athena, Glue, Spark and DuckDB read the partitions from the path. The date is the first log's (UTC);
 * the name is the batch's first and last log id, zero-padded so names sort in log order. A batch sent again
 * has the same first and last ids and overwrites its own object.
 */
export function objectKey(prefix: string, batch: ExportBatch, format: ObjectFormat): string {
  const first = batch.logs[0]!;
  const last = batch.logs[batch.logs.length - 1]!;
  const day = first.date.slice(0, 10);
  return (
    `${prefix}environment=${batch.environment}/ledger=${batch.ledger}/date=${day}/` +
    `${pad(first.id)}-${pad(last.id)}.${format === 'parquet' ? 'parquet' : 'ndjson'}`
  );
}

/** One JSON line per log, exactly as the `http` driver sends each (amounts as exact integers). */
export function ndjsonOf(batch: ExportBatch): Uint8Array {
  const lines = batch.logs.map((log) => `${stringifyJson(exportedLog(batch.ledger, log))}\n`);
  return Buffer.from(lines.join(''));
}

interface Posting {
  source: string;
  destination: string;
  asset: string;
  amount: bigint | number | string;
}

/** One Parquet row: a posting of a log's transaction, or the log alone when it moved nothing. */
interface Row {
  log: LogEntry;
  transactionId: bigint | null;
  index: number | null;
  posting: Posting | null;
}

/** The transaction a log moved money with: a new one, or a revert's reverse transaction. */
function movedBy(log: LogEntry): { id?: unknown; postings?: Posting[] } | undefined {
  if (log.type !== 'NEW_TRANSACTION' && log.type !== 'REVERTED_TRANSACTION') return undefined;
  return log.data.transaction as { id?: unknown; postings?: Posting[] } | undefined;
}

function rowsOf(log: LogEntry): Row[] {
  const tx = movedBy(log);
  const postings = tx?.postings ?? [];
  const transactionId = tx?.id !== undefined ? BigInt(tx.id as number) : null;
  if (postings.length === 0) return [{ log, transactionId, index: null, posting: null }];
  return postings.map((posting, index) => ({ log, transactionId, index, posting }));
}

/**
 * The batch as Parquet (docs/api.md §3.5, "The exported log"): one row per posting, the log's columns repeated,
 * and one row for a log that moves nothing (metadata). Amounts are decimal text, exact at any size (cast to
 * DECIMAL(38,0) or HUGEINT to add them up); `data` is the log's data as JSON text, exact.
 */
export function parquetOf(batch: ExportBatch): Uint8Array {
  const rows = batch.logs.flatMap(rowsOf);
  const column = <T>(
    name: string,
    type: Parameters<typeof parquetWriteBuffer>[0]['columnData'][number]['type'],
    value: (r: Row) => T,
  ) => ({
    name,
    type,
    data: rows.map(value),
  });
  const buffer = parquetWriteBuffer({
    columnData: [
      column('ledger', 'STRING', () => batch.ledger),
      column('log_id', 'INT64', (r) => BigInt(r.log.id)),
      column('log_type', 'STRING', (r) => r.log.type),
      column('log_date', 'TIMESTAMP', (r) => new Date(r.log.date)),
      column('log_date_text', 'STRING', (r) => r.log.date),
      column('idempotency_key', 'STRING', (r) => r.log.idempotencyKey),
      column('hash', 'STRING', (r) => r.log.hash),
      column('transaction_id', 'INT64', (r) => r.transactionId),
      column('posting_index', 'INT32', (r) => r.index),
      column('source', 'STRING', (r) => r.posting?.source ?? null),
      column('destination', 'STRING', (r) => r.posting?.destination ?? null),
      column('asset', 'STRING', (r) => r.posting?.asset ?? null),
      column('amount', 'STRING', (r) => (r.posting ? String(r.posting.amount) : null)),
      column('data', 'STRING', (r) => stringifyJson(r.log.data)),
    ],
  });
  return new Uint8Array(buffer);
}
