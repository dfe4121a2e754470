import { ValidationError } from '../errors/index.js';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An instant with microsecond precision: epoch milliseconds plus the microseconds within that millisecond. */
export interface Instant {
  ms: number;
  micros: number;
}

const MIN_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z') + 1;

/** Parses an RFC 3339 date-time (any offset) to an instant, refusing impossible calendar dates and times. */
export function parseInstant(value: string, field: string): Instant {
  const match = RFC3339.exec(value);
  const fail = (): never => {
    throw new ValidationError(
      `${field}: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)`,
    );
  };
  if (!match) return fail();
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offset = /^[+-](\d{2}):(\d{2})$/.exec(match[8]!);
  // Date.parse rolls 2026-02-30 over into March and takes 24:00: check the calendar ourselves.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return fail();
  if (offset && (Number(offset[1]) > 23 || Number(offset[2]) > 59)) return fail();
  const ms = Date.parse(
    value.replace(/\.(\d+)/, (_, f: string) => `.${f.slice(0, 3).padEnd(3, '0')}`),
  );
  // Years 0001-9999 only: the sortable form (fixed-width text) depends on a four-digit year.
  if (Number.isNaN(ms) || ms < MIN_MS || ms >= MAX_MS)
    throw new ValidationError(`${field}: must be between years 0001 and 9999`);
  const fraction = (match[7] ?? '').padEnd(9, '0');
  return { ms, micros: Number(fraction.slice(3, 6)) };
}

export const instantFromMs = (ms: number): Instant => ({ ms, micros: 0 });

/** RFC 3339 in UTC with `Z`, microseconds, trailing zeros trimmed (as the reference platform writes dates). */
export function formatInstant(instant: Instant): string {
  const iso = new Date(instant.ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(instant.micros).padStart(3, '0')}`.replace(
    /0+$/,
    '',
  );
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** A fixed-width form for keys and comparisons: lexicographic order is time order. */
export function sortableInstant(instant: Instant): string {
  const iso = new Date(instant.ms).toISOString();
  return `${iso.slice(0, 23)}${String(instant.micros).padStart(3, '0')}Z`;
}
