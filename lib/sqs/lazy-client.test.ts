import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { lazySqsClient } from './lazy-client.js';

describe('lazySqsClient', () => {
  it('builds the client at the first call, then answers the same one', async () => {
    const client = lazySqsClient({ region: 'eu-west-1' });
    const first = await client();
    expect(first).toBeInstanceOf(SQSClient);
    expect(await first.config.region()).toBe('eu-west-1');
    expect(await client()).toBe(first);
    expect(await lazySqsClient({ region: 'eu-west-1' })()).not.toBe(first);
  });
});
