import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { ListQuery, Page, PageKey } from '../pagination/cursor.js';
import { keyOfItem, stoppedPage } from './bounded-page.js';
import {
  checkCursorKey,
  expanded,
  forgedCursor,
  type RecordExpansion,
  recordsAfter,
} from './paginate.js';

/**
 * An index spread over shards (partitions holding interleaved parts of one order, such as a ledger's
 * transactions by time in `#TXT#<id mod n>`), read as one list: each shard is queried from the same position
 * and their items merged by sort key. Sort keys must be unique and of one length (`<timestamp>#<id>`), so a
 * cursor resumes every shard from one key by a key condition rather than a start key per shard.
 */
export interface ShardedQuery {
  table: string;
  index: string;
  /** The shards' partition keys, and the index's key attribute names. */
  shards: readonly string[];
  partitionAttribute: string;
  sortAttribute: string;
  /** Inclusive bounds on the sort key (either may be absent). */
  range: { lower?: string; upper?: string };
  keyAttributes: readonly string[];
  list: string;
  ascending: boolean;
  filters?: Record<string, string>;
  /** A condition evaluated here on each item; with it a page reads at most `readBudget` items. */
  keep?: (item: Record<string, unknown>) => boolean;
  readBudget?: number;
  /** Items that each hold several records (pages of transactions), merged record by record. */
  expand?: RecordExpansion;
}

/** One page of the merged shards, with cursors like queryPage's (bounded like boundedQueryPage's with `keep`). */
export async function shardedQueryPage<T>(
  doc: DynamoDBDocumentClient,
  query: ShardedQuery,
  list: ListQuery,
  toRecord: (item: Record<string, unknown>) => T,
): Promise<Page<T>> {
  const { pageSize, cursor } = list;
  const backwards = cursor?.d === 'p';
  if (cursor) checkCursorKey(cursor.k, query.keyAttributes);
  const forward = backwards ? !query.ascending : query.ascending;
  const from = cursor ? cursorSortKey(cursor.k, query.sortAttribute) : undefined;
  const range = from === undefined ? query.range : narrowed(query.range, from, forward);
  const budget = query.keep
    ? (query.readBudget ?? Number.POSITIVE_INFINITY)
    : Number.POSITIVE_INFINITY;
  const position = cursor?.k;
  const shards = query.shards.map(
    (pk) => new ShardReader(doc, query, pk, range, forward, position),
  );
  // A cursor inside a page: the page's records after it, merged like one more shard's.
  const resumed = await recordsAfter(
    doc,
    { input: { TableName: query.table }, ...(query.expand ? { expand: query.expand } : {}) },
    forward,
    position,
  );
  if (resumed.length > 0) shards.push(ShardReader.of(doc, query, resumed, forward));
  const chunk = Math.ceil((pageSize + 1) / shards.length) + 1;
  const items: Record<string, unknown>[] = [];
  let read = 0;
  let last: Record<string, unknown> | undefined;
  while (items.length <= pageSize && read < budget) {
    const item = await nextOf(shards, query.sortAttribute, forward, chunk);
    if (!item) break;
    read += 1;
    last = item;
    if (!query.keep || query.keep(item)) items.push(item);
  }
  const full = items.length > pageSize;
  const stopped = !full && read >= budget && shards.some((s) => !s.exhausted);
  const stoppedAt = stopped && last ? keyOfItem(query.keyAttributes)(last) : undefined;
  return stoppedPage(query, list, items, full || stopped, stoppedAt, toRecord);
}

/** A cursor's sort key: a string of the index's shape, or a forged cursor. */
function cursorSortKey(key: Record<string, string>, attribute: string): string {
  const value = key[attribute];
  if (typeof value !== 'string' || value.length === 0 || value.length > 1024) throw forgedCursor();
  return value;
}

/**
 * The range less the cursor's key and what lies before it in the reading direction. Keys are of one length, so
 * `key + '~'` is below every greater key, and the key with its last character lowered, then `~`, is above every
 * smaller one: exclusive bounds as inclusive ones, which is all a key condition with BETWEEN takes.
 */
function narrowed(
  range: { lower?: string; upper?: string },
  key: string,
  forward: boolean,
): { lower?: string; upper?: string } {
  if (forward) {
    const lower = `${key}~`;
    return {
      ...range,
      lower: range.lower === undefined || lower > range.lower ? lower : range.lower,
    };
  }
  const upper = `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) - 1)}~`;
  return {
    ...range,
    upper: range.upper === undefined || upper < range.upper ? upper : range.upper,
  };
}

/** The next item of the merge: the smallest (or greatest, reading backwards) head among the shards. */
async function nextOf(
  shards: readonly ShardReader[],
  sortAttribute: string,
  forward: boolean,
  chunk: number,
): Promise<Record<string, unknown> | undefined> {
  const heads = await Promise.all(shards.map((s) => s.peek(chunk)));
  let best = -1;
  for (let i = 0; i < heads.length; i++) {
    const head = heads[i];
    if (!head) continue;
    const bestHead = best < 0 ? undefined : heads[best]!;
    const key = String(head[sortAttribute]);
    if (
      !bestHead ||
      (forward ? key < String(bestHead[sortAttribute]) : key > String(bestHead[sortAttribute]))
    )
      best = i;
  }
  return best < 0 ? undefined : shards[best]!.take();
}

/** One shard read lazily in chunks that double, from the range's start in the reading direction. */
class ShardReader {
  private buffer: Record<string, unknown>[] = [];
  private start: Record<string, unknown> | undefined;
  private reads = 0;
  /** Every item of the range fetched (some may still wait in the buffer). */
  private done = false;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly query: ShardedQuery,
    private readonly partition: string,
    private readonly range: { lower?: string; upper?: string },
    private readonly forward: boolean,
    private readonly position?: PageKey,
  ) {}

  /** A reader of records already read. */
  static of(
    doc: DynamoDBDocumentClient,
    query: ShardedQuery,
    records: Record<string, unknown>[],
    forward: boolean,
  ): ShardReader {
    const reader = new ShardReader(doc, query, '', {}, forward);
    reader.buffer = records;
    reader.done = true;
    return reader;
  }

  async peek(chunk: number): Promise<Record<string, unknown> | undefined> {
    while (this.buffer.length === 0 && !this.done) await this.fill(chunk * 2 ** this.reads);
    return this.buffer[0];
  }

  take(): Record<string, unknown> | undefined {
    return this.buffer.shift();
  }

  private async fill(limit: number): Promise<void> {
    const { lower, upper } = this.range;
    if (lower !== undefined && upper !== undefined && lower > upper) {
      this.done = true;
      return;
    }
    const { partitionAttribute: p, sortAttribute: s } = this.query;
    const condition =
      lower !== undefined && upper !== undefined
        ? `#p = :p AND #s BETWEEN :lo AND :hi`
        : lower !== undefined
          ? `#p = :p AND #s >= :lo`
          : upper !== undefined
            ? `#p = :p AND #s <= :hi`
            : `#p = :p`;
    const result: QueryCommandOutput = await this.doc.send(
      new QueryCommand({
        TableName: this.query.table,
        IndexName: this.query.index,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: { '#p': p, ...(condition.includes('#s') ? { '#s': s } : {}) },
        ExpressionAttributeValues: {
          ':p': this.partition,
          ...(lower !== undefined ? { ':lo': lower } : {}),
          ...(upper !== undefined ? { ':hi': upper } : {}),
        },
        ScanIndexForward: this.forward,
        Limit: Math.min(limit, 1000),
        ...(this.start ? { ExclusiveStartKey: this.start } : {}),
      }),
    );
    this.reads += 1;
    this.buffer.push(
      ...expanded(
        this.query.expand,
        (result.Items ?? []) as Record<string, unknown>[],
        this.forward,
        this.position,
      ),
    );
    this.start = result.LastEvaluatedKey;
    this.done = !this.start;
  }

  /** Nothing left in the shard's range: all of it read and taken. */
  get exhausted(): boolean {
    return this.done && this.buffer.length === 0;
  }
}
