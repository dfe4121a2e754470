import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import { ValidationError } from '../../errors/index.js';
import { parseJson } from '../../json/bigint-json.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { LogEntry } from '../domain/logs.js';
import { ledgerKeys } from './keys.js';
import type { LedgerRecord } from './registry.js';

/** A stored log entry: its body is the exact JSON the writer hashed, amounts as big integers. */
export function parseStoredLog(body: string): LogEntry {
  const { id, type, data, date, idempotencyKey, hash } = parseJson(body) as Record<string, unknown>;
  return {
    id: Number(id),
    type: type as LogEntry['type'],
    data: idsAsNumbers(data) as Record<string, unknown>,
    date: String(date),
    idempotencyKey: String(idempotencyKey ?? ''),
    hash: String(hash ?? ''),
  };
}

/** Keys of log data holding ids (transaction ids, a metadata target's id), not amounts. */
const ID_KEYS = new Set(['id', 'targetId']);

/**
 * The exact parser reads every integer as bigint. Ids inside log data go back to numbers, as on transactions,
 * so `Formance-Bigint-As-String` turns amounts into strings but not ids. Either prints the same digits, so the
 * hash over the data is unchanged.
 */
function idsAsNumbers(value: unknown, key?: string): unknown {
  if (typeof value === 'bigint') return key !== undefined && ID_KEYS.has(key) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  if (Array.isArray(value)) return value.map((v) => idsAsNumbers(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, idsAsNumbers(v, k)]));
  }
  return value;
}

export const logListName = (ledger: string) => `ledger.logs.${ledger}`;

/** Reads of a ledger's log (strongly consistent: the log partition is read by key). */
export class LogReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /** Newest first (API.md §3.3). */
  async list(ledger: LedgerRecord, query: ListQuery): Promise<Page<LogEntry>> {
    const partition = ledgerKeys.logPartition(ledger.name);
    const k = query.cursor?.k;
    // The cursor is not signed: its start key must be a log key of this ledger, or DynamoDB refuses the query.
    if (k && (Object.keys(k).length !== 2 || k.pk !== partition || !/^\d{15}$/.test(k.sk ?? ''))) {
      throw new ValidationError('cursor: not a cursor of this list');
    }
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.tableFor(ledger.bucket),
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': partition },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: logListName(ledger.name),
        ascending: false,
      },
      query,
      (item) => parseStoredLog(String(item.body)),
    );
  }
}
