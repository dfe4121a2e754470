import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../../errors/index.js';
import { encodeCursor, type ListQuery, type Page } from '../../pagination/cursor.js';
import type { LogEntry } from '../domain/logs.js';
import { ledgerKeys } from './keys.js';
import { storedEntriesOf } from './log-pages.js';

export { parseStoredLog } from './log-pages.js';
import type { LedgerRecord } from './registry.js';

export const logListName = (ledger: string) => `ledger.logs.${ledger}`;

/** Reads of a ledger's log (strongly consistent: the log partition is read by key). */
export class LogReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /**
   * Newest first (API.md §3.3), entry by entry across log items and pages. A cursor names the log id it stops
   * at: the next page holds the ids below it, the previous page those above it.
   */
  async list(ledger: LedgerRecord, query: ListQuery): Promise<Page<LogEntry>> {
    const partition = ledgerKeys.logPartition(ledger.name);
    const k = query.cursor?.k;
    // The cursor is not signed: its key must be a log key of this ledger.
    if (k && (Object.keys(k).length !== 2 || k.pk !== partition || !/^\d{15}$/.test(k.sk ?? ''))) {
      throw new ValidationError('cursor: not a cursor of this list');
    }
    const table = this.tableFor(ledger.bucket);
    const { pageSize } = query;
    const cut = k ? Number(k.sk) : undefined;
    const backwards = query.cursor?.d === 'p';
    const found = backwards ? await this.above(table, ledger.name, cut!, pageSize + 1) : await this.below(table, ledger.name, cut, pageSize + 1);
    const more = found.length > pageSize;
    const data = found.slice(0, pageSize);
    if (backwards) data.reverse();
    const make = (d: 'n' | 'p', log: LogEntry) => encodeCursor({ l: logListName(ledger.name), p: pageSize, k: ledgerKeys.log(ledger.name, log.id), d });
    const hasNext = backwards ? true : more;
    const hasPrevious = backwards ? more : query.cursor !== undefined;
    const page: Page<LogEntry> = { pageSize, hasMore: hasNext, data };
    if (hasNext && data.length > 0) page.next = make('n', data[data.length - 1]!);
    if (hasPrevious && data.length > 0) page.previous = make('p', data[0]!);
    return page;
  }

  /** Up to `count` entries with ids below `cut` (all, without), newest first. */
  private async below(table: string, ledger: string, cut: number | undefined, count: number): Promise<LogEntry[]> {
    const entries: LogEntry[] = [];
    for await (const item of this.items(table, ledger, cut === undefined ? 'pk = :p' : 'pk = :p AND sk < :cut', cut, false, count)) {
      entries.push(...storedEntriesOf(item).map((e) => e.log).filter((log) => cut === undefined || log.id < cut).reverse());
      if (entries.length >= count) break;
    }
    return entries.slice(0, count);
  }

  /** Up to `count` entries with ids above `cut`, oldest first: from the item that holds `cut + 1`. */
  private async above(table: string, ledger: string, cut: number, count: number): Promise<LogEntry[]> {
    let from = cut + 1;
    for await (const item of this.items(table, ledger, 'pk = :p AND sk <= :cut', cut + 1, false, 1)) {
      from = Number(item.id);
      break;
    }
    const entries: LogEntry[] = [];
    for await (const item of this.items(table, ledger, 'pk = :p AND sk >= :cut', from, true, count)) {
      entries.push(...storedEntriesOf(item).map((e) => e.log).filter((log) => log.id > cut));
      if (entries.length >= count) break;
    }
    return entries.slice(0, count);
  }

  private async *items(table: string, ledger: string, condition: string, cut: number | undefined, ascending: boolean, limit: number): AsyncGenerator<Record<string, unknown>> {
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: { ':p': ledgerKeys.logPartition(ledger), ...(cut !== undefined ? { ':cut': ledgerKeys.log(ledger, cut).sk } : {}) },
          ScanIndexForward: ascending,
          ConsistentRead: true,
          // Every item holds at least one entry: `limit` items are enough, or the list ends.
          Limit: limit,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of (result.Items ?? []) as Array<Record<string, unknown>>) yield item;
      start = result.LastEvaluatedKey;
    } while (start);
  }
}
