import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { encodeCursor, type ListQuery, type Page, type PageKey } from '../pagination/cursor.js';
import {
  checkCursorKey,
  expanded,
  forgedCursor,
  inPartition,
  type PagedQuery,
  recordsAfter,
  startPartition,
} from './paginate.js';

/**
 * One page of a query whose FilterExpression may leave out most of its key range (a point in time far back): like
 * queryPage, but a page reads at most `readBudget` items, then stops where it is, possibly short or even empty, with
 * `hasMore` and a cursor that resumes exactly there: no request does unbounded work and no valid query is refused
 * (docs/data-model.md, "Query plans"). Reads grow from a page's worth, doubling, so a filter that keeps most items
 * costs what queryPage costs.
 */
export async function boundedQueryPage<T>(
  doc: DynamoDBDocumentClient,
  query: PagedQuery & { readBudget: number; keep?: (item: Record<string, unknown>) => boolean },
  list: ListQuery,
  toRecord: (item: Record<string, unknown>) => T,
): Promise<Page<T>> {
  const { pageSize, cursor } = list;
  const backwards = cursor?.d === 'p';
  if (cursor) checkCursorKey(cursor.k, query.keyAttributes);
  const forward = backwards ? !query.ascending : query.ascending;
  let partition = startPartition(query, forward, cursor?.k);
  const items: Record<string, unknown>[] = await recordsAfter(doc, query, forward, cursor?.k);
  let start: Record<string, unknown> | undefined = cursor?.k;
  // Where the read resumes when it stopped at the end of a partition with the walk going on.
  let between: Record<string, string> | undefined;
  let read = 0;
  let limit = pageSize + 1;
  do {
    let result: QueryCommandOutput;
    try {
      result = await doc.send(
        new QueryCommand({
          ...inPartition(query, partition),
          Limit: Math.min(limit, query.readBudget - read),
          ScanIndexForward: forward,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
    } catch (err) {
      if (cursor && (err as Error).name === 'ValidationException') throw forgedCursor();
      throw err;
    }
    read += result.ScannedCount ?? result.Items?.length ?? 0;
    // `keep`: a condition DynamoDB cannot evaluate, applied here to what the read returned.
    items.push(
      ...expanded(
        query.expand,
        (result.Items ?? []) as Record<string, unknown>[],
        forward,
        cursor?.k,
      ).filter((item) => !query.keep || query.keep(item)),
    );
    start = result.LastEvaluatedKey;
    limit *= 2;
    const next =
      !start && partition !== undefined ? query.partitions?.next(partition, forward) : undefined;
    between = next !== undefined ? query.partitions!.end(partition!, forward) : undefined;
    if (next !== undefined) partition = next;
  } while ((start || between) && items.length <= pageSize && read < query.readBudget);

  const keyOf = keyOfItem(query.keyAttributes);
  const full = items.length > pageSize;
  // Where a read in this direction resumes when the page is not full: where the budget stopped it.
  const stoppedAt = start ? keyOf(start) : between;
  return stoppedPage(query, list, items, full || stoppedAt !== undefined, stoppedAt, toRecord);
}

/** An item's position in a query: its key attributes, as a cursor records them. */
export const keyOfItem =
  (keyAttributes: readonly string[]) =>
  (item: Record<string, unknown>): PageKey =>
    Object.fromEntries(keyAttributes.map((name) => [name, String(item[name])]));

/**
 * A page of the items a read kept (up to pageSize + 1: one more means another page follows) in the read's direction,
 * with cursors: `more` when another page follows in that direction, `stoppedAt` where a read that stopped short
 * (a read budget spent) resumes.
 */
export function stoppedPage<T>(
  query: { keyAttributes: readonly string[]; list: string; filters?: Record<string, string> },
  { pageSize, cursor }: ListQuery,
  items: Record<string, unknown>[],
  more: boolean,
  stoppedAt: PageKey | undefined,
  toRecord: (item: Record<string, unknown>) => T,
): Page<T> {
  const backwards = cursor?.d === 'p';
  const keyOf = keyOfItem(query.keyAttributes);
  const full = items.length > pageSize;
  const pageItems = items.slice(0, pageSize);
  // Where a read in this direction resumes (after the page's last item, or where the budget stopped it), and
  // where one in the other direction does (before the page's first item, or where this read started).
  const far = full ? keyOf(pageItems[pageSize - 1]!) : stoppedAt;
  const near = pageItems[0] ? keyOf(pageItems[0]) : cursor?.k;
  if (backwards) pageItems.reverse();
  const make = (d: 'n' | 'p', k: PageKey) =>
    encodeCursor({
      l: query.list,
      p: pageSize,
      k,
      d,
      ...(query.filters ? { f: query.filters } : {}),
    });

  const page: Page<T> = {
    pageSize,
    hasMore: backwards ? true : more,
    data: pageItems.map(toRecord),
  };
  if (backwards) {
    if (near) page.next = make('n', near);
    if (more && far) page.previous = make('p', far);
  } else {
    if (more && far) page.next = make('n', far);
    if (cursor && near) page.previous = make('p', near);
  }
  return page;
}
