import { describe, expect, it } from 'vitest';
import { deliverDepsFromEnv } from '../../functions/deliver.js';
import { ConfigurationError } from '../../lib/errors/index.js';
import { dispatchDepsFromEnv } from '../../lib/webhooks/dispatch/deps.js';

describe('webhook workers read their environment once, failing loudly', () => {
  it('refuses a missing table or queue, for both workers', () => {
    for (const build of [dispatchDepsFromEnv, deliverDepsFromEnv]) {
      expect(() => build({ DELIVERIES_QUEUE_URL: 'http://q' })).toThrow(
        new ConfigurationError('WEBHOOKS_TABLE is required'),
      );
      expect(() => build({ WEBHOOKS_TABLE: 't' })).toThrow(
        new ConfigurationError('DELIVERIES_QUEUE_URL is required'),
      );
    }
  });

  it('allows loopback receivers only in the local stage', () => {
    const env = {
      WEBHOOKS_TABLE: 't',
      DELIVERIES_QUEUE_URL: 'http://q',
      SQS_ENDPOINT: 'http://127.0.0.1:1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:2',
    };
    expect(deliverDepsFromEnv({ ...env, STAGE: 'local' }).allowLoopback).toBe(true);
    expect(deliverDepsFromEnv({ ...env, STAGE: 'prod' }).allowLoopback).toBe(false);
    expect(dispatchDepsFromEnv(env)).toMatchObject({ table: 't', queueUrl: 'http://q' });
  });
});
