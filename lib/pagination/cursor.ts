import * as v from 'valibot';
import { ValidationError } from '../errors/index.js';

/** docs/api.md §1: default page size 15, values above 1000 clamped to 1000. */
export const DEFAULT_PAGE_SIZE = 15;
export const MAX_PAGE_SIZE = 1000;

export function parsePageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw new ValidationError('pageSize: must be a positive integer');
  }
  return Math.min(Number(raw), MAX_PAGE_SIZE);
}

/** Where a page starts: the store's last evaluated key, string attributes only. */
export type PageKey = Record<string, string>;

const cursorSchema = v.strictObject({
  /** Which list the cursor belongs to, so a cursor from another list is refused. */
  l: v.string(),
  p: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PAGE_SIZE)),
  k: v.record(v.string(), v.pipe(v.string(), v.maxLength(2048))),
  /** Direction: `n`ext page, or `p`revious page (walking back from a key). */
  d: v.picklist(['n', 'p']),
  /**
   * The list's filters, carried so that a cursor alone continues the same listing. As long as the longest filter
   * a list takes (a `query` of 8192 characters), or a cursor of a long filter could not be read back.
   */
  f: v.optional(v.record(v.string(), v.pipe(v.string(), v.maxLength(8192)))),
});

export type Cursor = v.InferOutput<typeof cursorSchema>;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** Opaque to callers; anything that does not decode into a cursor of this list is a 400. */
export function decodeCursor(raw: string, list: string): Cursor {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,8192}$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw new ValidationError('cursor: malformed');
  }
  const result = v.safeParse(cursorSchema, parsed);
  if (!result.success || result.output.l !== list)
    throw new ValidationError('cursor: not a cursor of this list');
  return result.output;
}

export interface ListQuery {
  pageSize: number;
  cursor?: Cursor;
}

/**
 * Reads `pageSize` and `cursor` from a list request. When `cursor` is given, only `pageSize` may accompany it
 * (the cursor already carries the list's filters).
 */
export function readListQuery(
  query: Record<string, string>,
  list: string,
  allowedFilters: readonly string[] = [],
): ListQuery {
  const { cursor, pageSize, ...rest } = query;
  for (const name of Object.keys(rest)) {
    if (cursor !== undefined)
      throw new ValidationError(`${name}: only pageSize may accompany cursor`);
    if (!allowedFilters.includes(name))
      throw new ValidationError(`${name}: unknown query parameter`);
  }
  if (cursor === undefined) return { pageSize: parsePageSize(pageSize) };
  const decoded = decodeCursor(cursor, list);
  return {
    pageSize: pageSize === undefined ? decoded.p : parsePageSize(pageSize),
    cursor: decoded,
  };
}

export interface Page<T> {
  pageSize: number;
  hasMore: boolean;
  previous?: string;
  next?: string;
  data: T[];
}
