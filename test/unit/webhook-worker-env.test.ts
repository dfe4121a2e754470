import { describe, expect, it } from 'vitest';
import { webhookWorkerConfigFromEnv } from '../../lib/config/env.js';
import { ConfigurationError } from '../../lib/errors/index.js';
import { dispatchDeps } from '../../lib/webhooks/dispatch/deps.js';
import { deliverDeps } from '../../lib/webhooks/worker-env.js';

describe('webhook workers read their configuration once, failing loudly', () => {
  it('refuses a missing table or queue, for both workers', () => {
    expect(() => webhookWorkerConfigFromEnv({ DELIVERIES_QUEUE_URL: 'http://q' })).toThrow(
      new ConfigurationError('environment variable WEBHOOKS_TABLE is required'),
    );
    expect(() => webhookWorkerConfigFromEnv({ WEBHOOKS_TABLE: 't' })).toThrow(
      new ConfigurationError('environment variable DELIVERIES_QUEUE_URL is required'),
    );
  });

  it('allows loopback receivers only in the local stage', () => {
    const env = {
      WEBHOOKS_TABLE: 't',
      DELIVERIES_QUEUE_URL: 'http://q',
      SQS_ENDPOINT: 'http://127.0.0.1:1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:2',
    };
    const deliver = (STAGE: string) => deliverDeps(webhookWorkerConfigFromEnv({ ...env, STAGE }));
    expect(deliver('local').allowLoopback).toBe(true);
    expect(deliver('prod').allowLoopback).toBe(false);
    expect(dispatchDeps(webhookWorkerConfigFromEnv(env))).toMatchObject({
      table: 't',
      queueUrl: 'http://q',
    });
  });
});
