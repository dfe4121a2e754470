import { ValidationError } from '../../errors/index.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An instant with microsecond precision: epoch milliseconds plus the microseconds within that millisecond. */
export interface Instant {
  ms: number;
  micros: number;
}

export function parseInstant(value: string, field: string): Instant {
  const match = RFC3339.exec(value);
  const ms = match ? Date.parse(value.replace(/\.(\d+)/, (_, f: string) => `.${f.slice(0, 3).padEnd(3, '0')}`)) : NaN;
  if (!match || Number.isNaN(ms)) throw new ValidationError(`${field}: must be an RFC 3339 date-time (e.g. 2026-11-22T10:04:05.123456Z)`);
  const fraction = (match[7] ?? '').padEnd(9, '0');
  return { ms, micros: Number(fraction.slice(3, 6)) };
}

export const instantFromMs = (ms: number): Instant => ({ ms, micros: 0 });

/** RFC 3339 in UTC with `Z`, microseconds, trailing zeros trimmed (as the reference platform writes dates). */
export function formatInstant(instant: Instant): string {
  const iso = new Date(instant.ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(instant.micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** A fixed-width form for keys and comparisons: lexicographic order is time order. */
export function sortableInstant(instant: Instant): string {
  const iso = new Date(instant.ms).toISOString();
  return `${iso.slice(0, 23)}${String(instant.micros).padStart(3, '0')}Z`;
}
