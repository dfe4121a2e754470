// Retry-After (RFC 9110 §10.2.3) is either delta-seconds or an HTTP-date.

/** Milliseconds to wait, from `nowMs`; undefined when the header cannot be read (it is then ignored). */
export function retryAfterMs(header: string, nowMs: number): number | undefined {
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only an actual date: Date.parse would also accept "1" or "2026" as a date.
  if (!/[a-z]/i.test(value)) return undefined;
  const atMs = Date.parse(value);
  if (Number.isNaN(atMs)) return undefined;
  return Math.max(0, atMs - nowMs);
}
