import {
  type DynamoDBDocumentClient,
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
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined = cursor?.k;
  do {
    let result: QueryCommandOutput;
    try {
      result = await doc.send(
        new QueryCommand({
          ...query.input,
          Limit: pageSize + 1 - items.length,
          ScanIndexForward: backwards ? !query.ascending : query.ascending,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
    } catch (err) {
      // Only a start key from a cursor can make our own query invalid (another partition, out of range).
      if (cursor && (err as Error).name === 'ValidationException') throw forgedCursor();
      throw err;
    }
    items.push(...((result.Items ?? []) as Record<string, unknown>[]));
    start = result.LastEvaluatedKey;
  } while (start && items.length < pageSize + 1);
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
