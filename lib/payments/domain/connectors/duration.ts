import { ValidationError } from '../../../errors/index.js';

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;

/**
 * A Go-style duration (`30m`, `1h30m`, `45s`), as the reference's connector configs write polling periods, in
 * milliseconds.
 */
export function parseDuration(text: string, field: string): number {
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(text))
    throw new ValidationError(`${field}: must be a duration such as 30m, 1h or 90s`);
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNIT_MS[unit!]!;
  return Math.round(total);
}

/** Milliseconds back to the shortest Go-style text (`1h30m0s` is written `1h30m`). */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ['h', 'm', 's'] as const) {
    const n = Math.floor(rest / UNIT_MS[unit]!);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * UNIT_MS[unit]!;
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('') || '0s';
}
