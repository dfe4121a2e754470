import { ValidationError } from '../../errors/index.js';
import { encodeCursor, type ListQuery, type Page } from '../../pagination/cursor.js';

/**
 * A page of a list kept inside one record (an initiation's adjustments, its related payments: at most a few
 * hundred), in the list's order. Its cursors carry the offset and the record they page, so a cursor of another
 * record's list is refused.
 */
export function arrayPage<T>(
  items: readonly T[],
  query: ListQuery,
  list: string,
  owner: string,
): Page<T> {
  const cursor = query.cursor;
  if (cursor && cursor.f?.owner !== owner)
    throw new ValidationError('cursor: not a cursor of this list');
  const offset = cursor ? Number(cursor.k.o) : 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new ValidationError('cursor: malformed');
  const at = (o: number, d: 'n' | 'p') =>
    encodeCursor({ l: list, p: query.pageSize, k: { o: String(o) }, d, f: { owner } });
  const data = items.slice(offset, offset + query.pageSize);
  const hasMore = offset + query.pageSize < items.length;
  return {
    pageSize: query.pageSize,
    hasMore,
    ...(offset > 0 ? { previous: at(Math.max(0, offset - query.pageSize), 'p') } : {}),
    ...(hasMore ? { next: at(offset + query.pageSize, 'n') } : {}),
    data,
  };
}
