import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../../errors/index.js';
import {
  type Cursor,
  decodeCursor,
  encodeCursor,
  type ListQuery,
  MAX_PAGE_SIZE,
  type Page,
} from '../../pagination/cursor.js';
import type { LogEntry } from '../domain/logs.js';
import type { LogPlan } from '../domain/query/log-query.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { storedEntriesOf } from './log-pages.js';

export { parseStoredLog } from './log-pages.js';

import type { LedgerRecord } from './registry.js';

export const logListName = (ledger: string) => `ledger.logs.${ledger}`;

/** Reads of a ledger's log (strongly consistent: the log partition is read by key). */
export class LogReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
    /** Entries a page reads at most when `keep` leaves some out (PlatformConfig.ledgerScanReads). */
    private readonly scanReads = 1000,
  ) {}

  /**
   * Newest first (docs/api.md §3.3), entry by entry across log items and pages. A cursor names the log id it stops
   * at: the next page holds the ids below it, the previous page those above it. A plan (domain/query/log-query.ts)
   * narrows the ids read and filters the entries: a page then reads at most `scanReads` entries and may be short,
   * its cursor resuming where the read stopped. `filters` are recorded in the cursors.
   */
  async list(
    ledger: LedgerRecord,
    query: ListQuery,
    plan: LogPlan = {},
    filters?: Record<string, string>,
  ): Promise<Page<LogEntry>> {
    const partition = ledgerKeys.logPartition(ledger);
    const k = query.cursor?.k;
    // The cursor is not signed: its key must be a log key of this ledger.
    if (k && (Object.keys(k).length !== 2 || k.pk !== partition || !/^\d{15}$/.test(k.sk ?? ''))) {
      throw new ValidationError('cursor: not a cursor of this list');
    }
    const table = this.tableFor(ledger.bucket);
    const { pageSize } = query;
    const budget = plan.keep ? this.scanReads : Number.POSITIVE_INFINITY;
    const backwards = query.cursor?.d === 'p';
    const cut = k ? Number(k.sk) : undefined;
    const scan = backwards
      ? await this.above(
          table,
          ledger,
          Math.max(cut!, (plan.from ?? 0) - 1),
          pageSize + 1,
          plan,
          budget,
        )
      : await this.below(
          table,
          ledger,
          Math.min(cut ?? Number.POSITIVE_INFINITY, plan.below ?? Number.POSITIVE_INFINITY),
          pageSize + 1,
          plan,
          budget,
        );
    const full = scan.entries.length > pageSize;
    const data = scan.entries.slice(0, pageSize);
    // Where a read in this direction resumes: after the page's last entry, or where the budget stopped it.
    const far = full ? data[data.length - 1]!.id : scan.stoppedAt;
    const more = full || scan.stoppedAt !== undefined;
    if (backwards) data.reverse();
    const make = (d: 'n' | 'p', id: number) =>
      encodeCursor({
        l: logListName(ledger.name),
        p: pageSize,
        k: ledgerKeys.log(ledger, id),
        d,
        ...(filters ? { f: filters } : {}),
      });
    const page: Page<LogEntry> = { pageSize, hasMore: backwards ? true : more, data };
    if (backwards) {
      // Older entries: those below this page, or, when the range read held none, those the cursor came from.
      page.next = make('n', data.length > 0 ? data[data.length - 1]!.id : cut! + 1);
      if (more && far !== undefined) page.previous = make('p', far);
    } else {
      if (more && far !== undefined) page.next = make('n', far);
      if (cut !== undefined) page.previous = make('p', data.length > 0 ? data[0]!.id : cut - 1);
    }
    return page;
  }

  /** Every entry, oldest first, a page of items at a time (the log export): constant memory however long the log. */
  async *oldestFirst(ledger: LedgerRecord, itemsPerPage = 100): AsyncGenerator<LogEntry> {
    for await (const item of this.items(
      this.tableFor(ledger.bucket),
      ledger,
      'pk = :p',
      undefined,
      true,
      itemsPerPage,
    )) {
      for (const { log } of storedEntriesOf(item)) yield log;
    }
  }

  /**
   * Up to `count` entries with ids above `afterId`, oldest first (a pipeline's next batch from its cursor): log ids
   * have no gaps, so these are exactly the entries `afterId + 1 … afterId + n` committed so far.
   */
  async after(ledger: LedgerRecord, afterId: number, count: number): Promise<LogEntry[]> {
    const table = this.tableFor(ledger.bucket);
    return (await this.above(table, ledger, afterId, count, {}, Number.POSITIVE_INFINITY)).entries;
  }

  /** How many entries the same listing holds (HEAD): its pages, counted. */
  async count(ledger: LedgerRecord, plan: LogPlan): Promise<number> {
    let total = 0;
    let cursor: Cursor | undefined;
    do {
      const page = await this.list(
        ledger,
        { pageSize: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        plan,
      );
      total += page.data.length;
      cursor = page.next ? decodeCursor(page.next, logListName(ledger.name)) : undefined;
    } while (cursor);
    return total;
  }

  /**
   * Up to `count` entries with ids below `cut` and at or above `plan.from` that `plan.keep` keeps, newest first;
   * `stoppedAt` is the last id read when `budget` entries were read first.
   */
  private async below(
    table: string,
    ledger: LedgerRef,
    cut: number,
    count: number,
    plan: LogPlan,
    budget: number,
  ): Promise<Scan> {
    const entries: LogEntry[] = [];
    const bounded = Number.isFinite(cut);
    let read = 0;
    for await (const item of this.items(
      table,
      ledger,
      bounded ? 'pk = :p AND sk < :cut' : 'pk = :p',
      bounded ? cut : undefined,
      false,
      count,
    )) {
      for (const { log } of storedEntriesOf(item).reverse()) {
        if (bounded && log.id >= cut) continue;
        if (plan.from !== undefined && log.id < plan.from) return { entries };
        if (!plan.keep || plan.keep(log)) entries.push(log);
        if (entries.length >= count) return { entries };
        if (++read >= budget) return { entries, stoppedAt: log.id };
      }
    }
    return { entries };
  }

  /** Up to `count` entries with ids above `cut` (and below `plan.below`) that `plan.keep` keeps, oldest first. */
  private async above(
    table: string,
    ledger: LedgerRef,
    cut: number,
    count: number,
    plan: LogPlan,
    budget: number,
  ): Promise<Scan> {
    let from = cut + 1;
    for await (const item of this.items(
      table,
      ledger,
      'pk = :p AND sk <= :cut',
      cut + 1,
      false,
      1,
    )) {
      from = Number(item.id);
      break;
    }
    const entries: LogEntry[] = [];
    let read = 0;
    for await (const item of this.items(
      table,
      ledger,
      'pk = :p AND sk >= :cut',
      from,
      true,
      count,
    )) {
      for (const { log } of storedEntriesOf(item)) {
        if (log.id <= cut) continue;
        if (plan.below !== undefined && log.id >= plan.below) return { entries };
        if (!plan.keep || plan.keep(log)) entries.push(log);
        if (entries.length >= count) return { entries };
        if (++read >= budget) return { entries, stoppedAt: log.id };
      }
    }
    return { entries };
  }

  private async *items(
    table: string,
    ledger: LedgerRef,
    condition: string,
    cut: number | undefined,
    ascending: boolean,
    limit: number,
  ): AsyncGenerator<Record<string, unknown>> {
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: {
            ':p': ledgerKeys.logPartition(ledger),
            ...(cut !== undefined ? { ':cut': ledgerKeys.log(ledger, cut).sk } : {}),
          },
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

interface Scan {
  entries: LogEntry[];
  stoppedAt?: number;
}
