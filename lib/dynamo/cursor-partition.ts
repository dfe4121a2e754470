import type { ListQuery } from '../pagination/cursor.js';
import { forgedCursor } from './paginate.js';

/**
 * A cursor continues the partition it was made in, and no other: its start key's partition attribute (`pk`, or
 * `gsi1pk` over the index) must be the one queried. Cursors are not signed, so a cursor of another environment's
 * list (whose keys start with that environment's prefix) is refused here as forged — a 400 that reveals nothing —
 * before any read, rather than left to DynamoDB to reject or, worse, to resume.
 */
export function requireCursorPartition(
  query: ListQuery,
  attribute: 'pk' | 'gsi1pk',
  partition: string,
): void {
  if (query.cursor && query.cursor.k[attribute] !== partition) throw forgedCursor();
}
