import { describe, expect, it } from 'vitest';
import { webhookWorkerConfigFromVariables } from '../config/env.js';
import { ConfigurationError } from '../errors/index.js';
import { DEFAULT_WEBHOOK_HEADER_SETS } from './domain/signing.js';
import { createDeliverDeps, createDispatchDeps, workerClients, workerSettings } from './workers.js';

describe('webhook workers read their configuration once, failing loudly', () => {
  it('refuses a missing table or queue', () => {
    expect(() => webhookWorkerConfigFromVariables({ DELIVERIES_QUEUE_URL: 'http://q' })).toThrow(
      new ConfigurationError('environment variable WEBHOOKS_TABLE is required'),
    );
    expect(() => webhookWorkerConfigFromVariables({ WEBHOOKS_TABLE: 't' })).toThrow(
      new ConfigurationError('environment variable EVENTS_TABLE is required'),
    );
    expect(() =>
      webhookWorkerConfigFromVariables({ WEBHOOKS_TABLE: 't', EVENTS_TABLE: 'e' }),
    ).toThrow(new ConfigurationError('environment variable DELIVERIES_QUEUE_URL is required'));
    expect(() =>
      webhookWorkerConfigFromVariables({
        WEBHOOKS_TABLE: 't',
        EVENTS_TABLE: 'e',
        DELIVERIES_QUEUE_URL: 'http://q',
        WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: '5d',
      }),
    ).toThrow(
      new ConfigurationError(
        'WEBHOOK_DISABLE_AFTER_FAILING_SECONDS must be a whole number of seconds (got "5d")',
      ),
    );
  });

  it('allows loopback receivers only in the local stage; both workers are composed from the same settings', () => {
    const env = {
      WEBHOOKS_TABLE: 't',
      EVENTS_TABLE: 'e',
      DELIVERIES_QUEUE_URL: 'http://q',
      SQS_ENDPOINT: 'http://127.0.0.1:1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:2',
    };
    const config = webhookWorkerConfigFromVariables({ ...env, STAGE: 'local' });
    const local = workerSettings(config);
    expect(local).toEqual({
      table: 't',
      queueUrl: 'http://q',
      allowLoopback: true,
      headerSets: DEFAULT_WEBHOOK_HEADER_SETS,
      eventsTable: 'e',
      disableAfterFailingMs: 432_000_000,
    });
    expect(
      workerSettings(webhookWorkerConfigFromVariables({ ...env, STAGE: 'prod' })).allowLoopback,
    ).toBe(false);
    expect(
      workerSettings(
        webhookWorkerConfigFromVariables({ ...env, WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: '0' }),
      ).disableAfterFailingMs,
    ).toBe(0);
    const clients = workerClients(config);
    const { doc, sqs, logger } = clients;
    expect(createDeliverDeps(local, clients)).toEqual({
      ...{ doc, sqs, logger },
      table: 't',
      queueUrl: 'http://q',
      allowLoopback: true,
      headerSets: DEFAULT_WEBHOOK_HEADER_SETS,
      eventsTable: 'e',
      disableAfterFailingMs: 432_000_000,
    });
    expect(createDispatchDeps(local, clients)).toEqual({
      ...{ doc, sqs, logger },
      table: 't',
      queueUrl: 'http://q',
    });
  });
});
