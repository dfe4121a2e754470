import { ValidationError } from '../../../errors/index.js';
import { LEDGER_OPERAND_MAX_DIGITS } from '../../../money/amounts.js';
import { parseInstant, sortableInstant } from '../../../time/instant.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../names.js';
import type { FieldRule, Operator } from './ast.js';

/** Operand checks and item tests shared by every list's schema. */

export const ORDERED: readonly Operator[] = ['$match', '$in', '$lt', '$lte', '$gt', '$gte'];
const SEGMENT = /^[a-zA-Z0-9_-]*$/;

/** `$lt`... on values of one kind (bigint, or sortable text such as instants). */
export function compare<V extends bigint | string>(
  actual: V | undefined,
  op: string,
  operand: V,
): boolean {
  if (actual === undefined) return false;
  switch (op) {
    case '$lt':
      return actual < operand;
    case '$lte':
      return actual <= operand;
    case '$gt':
      return actual > operand;
    case '$gte':
      return actual >= operand;
    default:
      return actual === operand;
  }
}

/**
 * SQL LIKE: `%` any run of characters, `_` any one character, every other character itself. Pieces between
 * `%` are matched leftmost-first (enough for such patterns), so the cost is bounded by text × pattern length
 * with no backtracking blow-up whatever the pattern.
 */
export function likeMatches(pattern: string, text: string): boolean {
  const pieces = pattern.split('%');
  const fits = (piece: string, at: number) => {
    if (at + piece.length > text.length) return false;
    for (let i = 0; i < piece.length; i++)
      if (piece[i] !== '_' && piece[i] !== text[at + i]) return false;
    return true;
  };
  if (pieces.length === 1) return pattern.length === text.length && fits(pattern, 0);
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (
    !fits(first, 0) ||
    text.length - last.length < first.length ||
    !fits(last, text.length - last.length)
  )
    return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    let found = -1;
    for (let i = at; i + piece.length <= end; i++) {
      if (fits(piece, i)) {
        found = i;
        break;
      }
    }
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/**
 * An address operand: an exact address, a prefix ending with `:` (`users:` matches `users:1` and `users:1:eur`),
 * or a segment pattern with empty segments as wildcards (`users::eur`: three segments, first and last fixed).
 */
export type AddressPattern =
  | { exact: string }
  | { prefix: string }
  | { segments: Array<string | null> };

export function addressOperand(raw: unknown, at: string): AddressPattern {
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_ADDRESS_LENGTH)
    throw new ValidationError(
      `${at}: must be an account address or pattern of at most ${MAX_ADDRESS_LENGTH} characters`,
    );
  if (ACCOUNT_ADDRESS.test(raw)) return { exact: raw };
  const body = raw.endsWith(':') ? raw.slice(0, -1) : raw;
  if (ACCOUNT_ADDRESS.test(body)) return { prefix: raw };
  const parts = raw.split(':');
  if (parts.length > 1 && parts.every((p) => SEGMENT.test(p)))
    return { segments: parts.map((p) => (p === '' ? null : p)) };
  throw new ValidationError(
    `${at}: must be an account address, a prefix ending with ":", or a segment pattern such as "users::eur"`,
  );
}

export function addressMatches(pattern: AddressPattern, address: string): boolean {
  if ('exact' in pattern) return address === pattern.exact;
  if ('prefix' in pattern) return address.startsWith(pattern.prefix);
  const parts = address.split(':');
  return (
    parts.length === pattern.segments.length &&
    pattern.segments.every((s, i) => s === null || s === parts[i])
  );
}

/** An instant operand (RFC 3339), as its sortable text. */
export function instantOperand(raw: unknown, at: string): string {
  if (typeof raw !== 'string')
    throw new ValidationError(`${at}: must be an RFC 3339 date-time string`);
  return sortableInstant(parseInstant(raw, at));
}

/** An integer operand: a JSON number (exact, parsed losslessly) or a decimal string, of any size up to a bound. */
export function integerOperand(raw: unknown, at: string): bigint {
  const text =
    typeof raw === 'bigint' || typeof raw === 'number'
      ? String(raw)
      : typeof raw === 'string'
        ? raw
        : '';
  if (!/^-?\d+$/.test(text) || text.replace(/^-?0*/, '').length > LEDGER_OPERAND_MAX_DIGITS)
    throw new ValidationError(
      `${at}: must be an integer of at most ${LEDGER_OPERAND_MAX_DIGITS} digits`,
    );
  return BigInt(text);
}

export function stringOperand(raw: unknown, at: string, max = 4096): string {
  if (typeof raw !== 'string' || raw.length > max)
    throw new ValidationError(`${at}: must be a string of at most ${max} characters`);
  return raw;
}

export function booleanOperand(raw: unknown, at: string): boolean {
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ValidationError(`${at}: must be true or false`);
}

/** A string field: `$match`, `$in`, `$like`, and the orderings on its text. */
export function stringField<T>(read: (item: T) => string | undefined, max = 4096): FieldRule<T> {
  return {
    operators: ['$match', '$in', '$like', '$lt', '$lte', '$gt', '$gte'],
    operand: (raw, at) => stringOperand(raw, at, max),
    test: (item, op, operand) => {
      const value = read(item);
      if (value === undefined) return false;
      return op === '$like'
        ? likeMatches(operand as string, value)
        : compare(value, op, operand as string);
    },
  };
}

/** An instant field, compared on its sortable text; `$exists` when it may be absent (reverted_at). */
export function instantField<T>(
  read: (item: T) => string | undefined,
  optional = false,
): FieldRule<T> {
  return {
    operators: optional ? [...ORDERED, '$exists'] : ORDERED,
    operand: (raw, at, op) =>
      op === '$exists' ? booleanOperand(raw, at) : instantOperand(raw, at),
    test: (item, op, operand) => {
      const value = read(item);
      if (op === '$exists') return (value !== undefined) === operand;
      return (
        value !== undefined &&
        compare(sortableInstant(parseInstant(value, 'stored')), op, operand as string)
      );
    },
  };
}

export function integerField<T>(read: (item: T) => bigint | undefined): FieldRule<T> {
  return {
    operators: ORDERED,
    operand: integerOperand,
    test: (item, op, operand) => compare(read(item), op, operand as bigint),
  };
}

export function booleanField<T>(read: (item: T) => boolean): FieldRule<T> {
  return {
    operators: ['$match'],
    operand: booleanOperand,
    test: (item, _op, operand) => read(item) === operand,
  };
}

/** An address field (possibly several addresses, e.g. a transaction's sources): any of them matches. */
export function addressField<T>(read: (item: T) => readonly string[]): FieldRule<T> {
  return {
    operators: ['$match', '$in', '$like'],
    operand: (raw, at, op) => (op === '$like' ? stringOperand(raw, at) : addressOperand(raw, at)),
    test: (item, op, operand) =>
      read(item).some((address) =>
        op === '$like'
          ? likeMatches(operand as string, address)
          : addressMatches(operand as AddressPattern, address),
      ),
  };
}

const METADATA_FIELD = /^metadata\[(.{1,256})\]$/s;

/**
 * `metadata[key]` compared as text (`$match`, `$in`, `$like`, orderings), and `{"$exists": {"metadata": "key"}}`.
 * Keys are read with hasOwn: a key such as `__proto__` is data like any other.
 */
export function metadataRule<T>(
  field: string,
  read: (item: T) => Record<string, string>,
): FieldRule<T> | undefined {
  if (field === 'metadata') {
    return {
      operators: ['$exists'],
      operand: (raw, at) => stringOperand(raw, at, 256),
      test: (item, _op, key) => Object.hasOwn(read(item), key as string),
    };
  }
  const key = METADATA_FIELD.exec(field)?.[1];
  if (key === undefined) return undefined;
  return stringField((item) => {
    const metadata = read(item);
    return Object.hasOwn(metadata, key) ? metadata[key] : undefined;
  });
}
