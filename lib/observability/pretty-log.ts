/** What every line has, printed first and in its own place rather than as `key=value`. */
const HEAD = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate']);

/**
 * A log entry as one line a person reads (LOG_FORMAT=pretty): the time of day, the level, the service, the
 * message, then the fields as `key=value` (a value with spaces or quotes, or not a string, as JSON):
 *
 *     21:40:56.123 INFO  ledger  request  method=POST route=/v2/shop/transactions status=200 durationMs=3
 */
export function prettyLogLine(attributes: Record<string, unknown>): string {
  const { level, message, timestamp, service } = attributes;
  const time = typeof timestamp === 'string' ? timestamp.slice(11, 23) : '';
  const fields = Object.entries(attributes)
    .filter(([key, value]) => !HEAD.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const head = `${time} ${String(level ?? '').padEnd(5)} ${String(service ?? '')}  ${String(message ?? '')}`;
  return fields.length > 0 ? `${head}  ${fields.join(' ')}` : head;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  try {
    return (
      JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v)) ??
      String(value)
    );
  } catch {
    return String(value);
  }
}
