import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../lib/errors/index.js';
import {
  workerClientsFromEnv,
  workerSettingsFromEnv,
} from '../../lib/webhooks/settings-from-env.js';
import { createDeliverDeps, createDispatchDeps } from '../../lib/webhooks/workers.js';

describe('webhook workers read their environment once, failing loudly', () => {
  it('refuses a missing table or queue', () => {
    expect(() => workerSettingsFromEnv({ DELIVERIES_QUEUE_URL: 'http://q' })).toThrow(
      new ConfigurationError('WEBHOOKS_TABLE is required'),
    );
    expect(() => workerSettingsFromEnv({ WEBHOOKS_TABLE: 't' })).toThrow(
      new ConfigurationError('DELIVERIES_QUEUE_URL is required'),
    );
  });

  it('allows loopback receivers only in the local stage; both workers are composed from the same settings', () => {
    const env = {
      WEBHOOKS_TABLE: 't',
      DELIVERIES_QUEUE_URL: 'http://q',
      SQS_ENDPOINT: 'http://127.0.0.1:1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:2',
    };
    const local = workerSettingsFromEnv({ ...env, STAGE: 'local' });
    expect(local).toEqual({ table: 't', queueUrl: 'http://q', allowLoopback: true });
    expect(workerSettingsFromEnv({ ...env, STAGE: 'prod' }).allowLoopback).toBe(false);
    const clients = workerClientsFromEnv(env);
    const { doc, sqs, logger } = clients;
    expect(createDeliverDeps(local, clients)).toEqual({
      ...{ doc, sqs, logger },
      table: 't',
      queueUrl: 'http://q',
      allowLoopback: true,
    });
    expect(createDispatchDeps(local, clients)).toEqual({
      ...{ doc, sqs, logger },
      table: 't',
      queueUrl: 'http://q',
    });
  });
});
