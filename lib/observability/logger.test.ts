import { describe, expect, it } from 'vitest';
import { createLogger, enterLambdaInvocation, leaveLambdaInvocation } from './logger.js';

function captured(level: Parameters<typeof createLogger>[0] = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, (line) => lines.push(JSON.parse(line)));
  return { logger, lines };
}

describe('createLogger (Powertools Logger behind the Logger type)', () => {
  it("writes one JSON object a line in Powertools' shape, the fields after its own keys", () => {
    const { logger, lines } = captured();
    logger.log('info', 'key rotation', { promoted: 'kid-1', amount: 12345678901234567890n });
    expect(lines).toHaveLength(1);
    const [line] = lines as [Record<string, unknown>];
    expect(Object.keys(line)).toEqual([
      'level',
      'message',
      'timestamp',
      'service',
      'sampling_rate',
      'promoted',
      'amount',
    ]);
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'key rotation',
      service: 'platform',
      promoted: 'kid-1',
      // A big integer is written as its digits, not thrown on.
      amount: '12345678901234567890',
    });
    expect(Date.parse(String(line.timestamp))).not.toBeNaN();
  });

  it('names the service a line gives in its fields (a reserved key in Powertools), and the default otherwise', () => {
    const { logger, lines } = captured();
    logger.log('info', 'request', { service: 'ledger', status: 200 });
    logger.log('error', 'request', { service: 'auth', status: 503 });
    logger.log('warn', 'queue batch failed', { queue: 'deliveries' });
    expect(lines.map((l) => [l.level, l.service, l.status ?? l.queue])).toEqual([
      ['INFO', 'ledger', 200],
      ['ERROR', 'auth', 503],
      ['WARN', 'platform', 'deliveries'],
    ]);
  });

  it('drops lines below its level, and everything when silent', () => {
    const warn = captured('warn');
    for (const level of ['debug', 'info', 'warn', 'error'] as const) warn.logger.log(level, level);
    expect(warn.lines.map((l) => l.message)).toEqual(['warn', 'error']);
    const silent = captured('silent');
    silent.logger.log('error', 'nothing');
    expect(silent.lines).toEqual([]);
  });

  it("carries the Lambda invocation's context once the handler wrapper names it", () => {
    const { logger, lines } = captured();
    enterLambdaInvocation(
      { awsRequestId: 'req-1', functionName: 'platform-dev-deliver', memoryLimitInMB: '512' },
      true,
    );
    logger.log('info', 'first', { service: 'webhooks' });
    enterLambdaInvocation({ awsRequestId: 'req-2', functionName: 'platform-dev-deliver' }, false);
    logger.log('info', 'second');
    logger.log('info', 'third', { service: 'webhooks' });
    expect(
      lines.map((l) => [l.message, l.function_request_id, l.cold_start, l.function_name]),
    ).toEqual([
      ['first', 'req-1', true, 'platform-dev-deliver'],
      ['second', 'req-2', false, 'platform-dev-deliver'],
      ['third', 'req-2', false, 'platform-dev-deliver'],
    ]);
    expect(lines[0]!.function_memory_size).toBe('512');
    // Once the invocation has ended, a logger made afterwards names none.
    leaveLambdaInvocation();
    const after = captured();
    after.logger.log('info', 'later');
    expect(after.lines.map((l) => [l.message, l.function_request_id, l.function_name])).toEqual([
      ['later', undefined, undefined],
    ]);
  });
});
