/** LOG_FORMAT=pretty (lib/observability/pretty-log.ts): one readable line per entry, the same entries as JSON. */
import { describe, expect, it } from 'vitest';
import { logFormatFromVariables } from '../config/env.js';
import { createLogger } from './logger.js';
import { prettyLogLine } from './pretty-log.js';

describe('a pretty log line', () => {
  it('has the time of day, level, service and message, then the fields as key=value', () => {
    expect(
      prettyLogLine({
        level: 'INFO',
        message: 'request',
        timestamp: '2026-11-27T21:40:56.123Z',
        service: 'ledger',
        sampling_rate: 0,
        method: 'POST',
        route: '/v2/shop/transactions',
        status: 200,
        amount: 12345678901234567890n,
        note: 'two words',
        tags: ['a', 'b'],
        absent: undefined,
      }),
    ).toBe(
      '21:40:56.123 INFO  ledger  request  method=POST route=/v2/shop/transactions status=200 amount=12345678901234567890 note="two words" tags=["a","b"]',
    );
    expect(
      prettyLogLine({
        level: 'WARN',
        message: 'm',
        timestamp: '2026-11-27T21:40:56.123Z',
        service: 'platform',
      }),
    ).toBe('21:40:56.123 WARN  platform  m');
  });

  it('is what a logger created with the pretty format writes, its level filter as before', () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line), 'pretty');
    logger.log('debug', 'dropped');
    logger.log('error', 'webhook delivery failed', { service: 'webhooks', attempt: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} ERROR webhooks {2}webhook delivery failed {2}attempt=3$/,
    );
  });

  it('is chosen by LOG_FORMAT, json by default; another value stops start-up naming it', () => {
    expect(logFormatFromVariables({})).toBe('json');
    expect(logFormatFromVariables({ LOG_FORMAT: 'pretty' })).toBe('pretty');
    expect(() => logFormatFromVariables({ LOG_FORMAT: 'text' })).toThrow(
      'LOG_FORMAT must be one of json, pretty (got "text")',
    );
  });
});
