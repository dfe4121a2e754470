import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../errors/index.js';
import { encodeCursor, type ListQuery, type Page, type PageKey } from '../pagination/cursor.js';

export const forgedCursor = () => new ValidationError('cursor: not a cursor of this list');

/** A cursor's start key must name exactly the query's key attributes, or it is forged (a 400). */
export function checkCursorKey(
  key: Record<string, string>,
  keyAttributes: readonly string[],
): void {
  const names = Object.keys(key).sort();
  const expected = [...keyAttributes].sort();
  if (names.length !== expected.length || names.some((n, i) => n !== expected[i]))
    throw forgedCursor();
}

export interface PagedQuery {
  /** Query input without paging fields: table, index, key condition, names, values. */
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey' | 'ScanIndexForward'>;
  /** Attributes that make up an item's position in this query (table keys plus index keys). */
  keyAttributes: readonly string[];
  /** List name recorded in cursors so one list's cursor is refused by another. */
  list: string;
  /** Sort order of the first page. */
  ascending: boolean;
  /** Filters the query applied, recorded in its cursors. */
  filters?: Record<string, string>;
  /** Items in several partitions read one after another (a ledger's blocks of transactions). */
  partitions?: PartitionWalk;
  /** Items that each hold several records (pages of transactions), listed record by record. */
  expand?: RecordExpansion;
}

type Item = Record<string, unknown>;

/**
 * Items holding several records: a list returns the records, each with a position of its own (its key attributes)
 * that a cursor names. A position inside an item is not the item's key, so a read resuming forward from it takes
 * the item's remaining records first.
 */
export interface RecordExpansion {
  /** An item's records, in the list's ascending order. */
  records(item: Item): Item[];
  /** The key of the item a position is inside of; undefined for an item's own key. */
  holder(position: PageKey): Record<string, string> | undefined;
  /** Whether a record lies after a position in the reading direction. */
  beyond(record: Item, position: PageKey, forward: boolean): boolean;
}

/** Items read, as the list's records in the reading direction, less those a cursor's position already passed. */
export function expanded(
  expand: RecordExpansion | undefined,
  items: readonly Item[],
  forward: boolean,
  position: PageKey | undefined,
): Item[] {
  if (!expand) return [...items];
  return items.flatMap((item) => {
    const records = expand.records(item);
    if (!forward) records.reverse();
    return position ? records.filter((r) => expand.beyond(r, position, forward)) : records;
  });
}

/** A forward read from a position inside an item: the item's records after it, read before the rest. */
export async function recordsAfter(
  doc: DynamoDBDocumentClient,
  query: Pick<PagedQuery, 'input' | 'expand'>,
  forward: boolean,
  position: PageKey | undefined,
): Promise<Item[]> {
  const holder = position && forward ? query.expand?.holder(position) : undefined;
  if (!holder) return [];
  const { Item: found } = await doc.send(
    new GetCommand({ TableName: query.input.TableName, Key: holder, ConsistentRead: true }),
  );
  return found ? expanded(query.expand, [found], forward, position) : [];
}

/**
 * A query over partitions visited in order: the key condition names the partition by `value` (`:p`), and when
 * one partition's range ends the read goes on in the next one in the scan's direction.
 */
export interface PartitionWalk {
  /** The expression value naming the partition in the key condition, and the key attribute holding it. */
  value: string;
  attribute: string;
  /** The partition a first page starts in, reading forward (ScanIndexForward) or not. */
  first(forward: boolean): string;
  /** The partition after `pk` in that direction, or undefined at the end. */
  next(pk: string, forward: boolean): string | undefined;
  /** Whether a cursor's partition is one of the walk's (a forged cursor otherwise). */
  owns(pk: string): boolean;
  /** A position after every item of `pk` in that direction: where a read that stopped at its end resumes. */
  end(pk: string, forward: boolean): Record<string, string>;
}

/** Where a read starts: the cursor's partition (checked) or the walk's first, or the query's own. */
export function startPartition(
  query: PagedQuery,
  forward: boolean,
  cursorKey: Record<string, string> | undefined,
): string | undefined {
  const walk = query.partitions;
  if (!walk) return undefined;
  if (!cursorKey) return walk.first(forward);
  const pk = cursorKey[walk.attribute];
  if (pk === undefined || !walk.owns(pk)) throw forgedCursor();
  return pk;
}

/** The query's input in one partition of its walk (unchanged without a walk). */
export function inPartition(query: PagedQuery, partition: string | undefined): PagedQuery['input'] {
  if (!query.partitions || partition === undefined) return query.input;
  return {
    ...query.input,
    ExpressionAttributeValues: {
      ...query.input.ExpressionAttributeValues,
      [query.partitions.value]: partition,
    },
  };
}

/**
 * Reads one page of a key-served query, with `next` and `previous` cursors. It asks for one item more than
 * the page to know whether another page follows, and never returns a short page while more items remain.
 */
export async function queryPage<T>(
  doc: DynamoDBDocumentClient,
  query: PagedQuery,
  list: ListQuery,
  toRecord: (item: Record<string, unknown>) => T,
): Promise<Page<T>> {
  const { pageSize, cursor } = list;
  const backwards = cursor?.d === 'p';
  // With a FilterExpression a read can return fewer items than asked: keep reading the same key range
  // until the page is full or the range ends (the range is bounded by the key condition, never a scan).
  // Cursors are opaque, not signed: a start key of the wrong shape, or outside this query's partition, is a
  // forged cursor — a 400, never passed on to fail as a DynamoDB error.
  if (cursor) checkCursorKey(cursor.k, query.keyAttributes);
  const forward = backwards ? !query.ascending : query.ascending;
  let partition = startPartition(query, forward, cursor?.k);
  const items: Record<string, unknown>[] = await recordsAfter(doc, query, forward, cursor?.k);
  let start: Record<string, unknown> | undefined = cursor?.k;
  let moved = false;
  do {
    let result: QueryCommandOutput;
    try {
      result = await doc.send(
        new QueryCommand({
          ...inPartition(query, partition),
          Limit: pageSize + 1 - items.length,
          ScanIndexForward: forward,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
    } catch (err) {
      // Only a start key from a cursor can make our own query invalid (another partition, out of range).
      if (cursor && (err as Error).name === 'ValidationException') throw forgedCursor();
      throw err;
    }
    items.push(...expanded(query.expand, (result.Items ?? []) as Item[], forward, cursor?.k));
    start = result.LastEvaluatedKey;
    // The partition's range ended: the walk goes on in the next one, from its first item.
    const next =
      !start && partition !== undefined ? query.partitions?.next(partition, forward) : undefined;
    moved = next !== undefined;
    if (next !== undefined) partition = next;
  } while ((start || moved) && items.length < pageSize + 1);
  const more = items.length > pageSize;
  const pageItems = items.slice(0, pageSize);
  if (backwards) pageItems.reverse();

  const keyOf = (item: Record<string, unknown>): PageKey =>
    Object.fromEntries(query.keyAttributes.map((name) => [name, String(item[name])]));
  const make = (d: 'n' | 'p', item: Record<string, unknown>) =>
    encodeCursor({
      l: query.list,
      p: pageSize,
      k: keyOf(item),
      d,
      ...(query.filters ? { f: query.filters } : {}),
    });

  const first = pageItems[0];
  const last = pageItems[pageItems.length - 1];
  // Going forwards, a previous page exists whenever we started from a cursor; going backwards, when more
  // items were found before this page. The mirror holds for the next page.
  const hasNext = backwards ? true : more;
  const hasPrevious = backwards ? more : cursor !== undefined;
  const page: Page<T> = { pageSize, hasMore: hasNext, data: pageItems.map(toRecord) };
  if (hasNext && last) page.next = make('n', last);
  if (hasPrevious && first) page.previous = make('p', first);
  return page;
}
