/**
 * Structured JSON logs: one object per line on stdout, which Lambda ships to CloudWatch as-is.
 * Callers pass plain fields; nothing here knows about secrets, so callers must never pass one.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel | 'silent', number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  silent: 100,
};

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  level: LogLevel | 'silent' = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const threshold = ORDER[level];
  return {
    log(lvl, message, fields) {
      if (ORDER[lvl] < threshold) return;
      write(JSON.stringify({ level: lvl, time: new Date().toISOString(), message, ...fields }));
    },
  };
}
