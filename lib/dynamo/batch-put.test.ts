/**
 * batchPut (lib/dynamo/batch-put.ts): what DynamoDB Local never does — leave items of a BatchWriteItem unprocessed
 * (throttling) — is mocked with aws-sdk-client-mock: every item is sent until none is left, 25 to a call.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { batchPut } from './batch-put.js';

const doc = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  }),
);
const mock = mockClient(doc);
afterEach(() => mock.reset());

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ pk: `P#${i}`, sk: 'S' }));
const sent = () =>
  mock
    .commandCalls(BatchWriteCommand)
    .map((c) => (c.args[0].input.RequestItems!.t ?? []).map((r) => String(r.PutRequest!.Item!.pk)));

describe('batchPut', () => {
  it('sends 25 items to a call', async () => {
    mock.on(BatchWriteCommand).resolves({});
    await batchPut(doc, 't', items(60));
    expect(sent().map((call) => call.length)).toEqual([25, 25, 10]);
    expect(sent().flat().sort()).toEqual(
      items(60)
        .map((i) => i.pk)
        .sort(),
    );
  });

  it('sends again what DynamoDB left unprocessed, until nothing is left', async () => {
    const [a, b, c] = items(3);
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({
        UnprocessedItems: { t: [{ PutRequest: { Item: b! } }, { PutRequest: { Item: c! } }] },
      })
      .resolvesOnce({ UnprocessedItems: { t: [{ PutRequest: { Item: c! } }] } })
      .resolves({});
    await batchPut(doc, 't', [a!, b!, c!]);
    expect(sent()).toEqual([['P#0', 'P#1', 'P#2'], ['P#1', 'P#2'], ['P#2']]);
  });

  it('lets any other failure through', async () => {
    mock
      .on(BatchWriteCommand)
      .rejects(Object.assign(new Error('no such table'), { name: 'ResourceNotFoundException' }));
    await expect(batchPut(doc, 't', items(2))).rejects.toThrow('no such table');
  });

  it('sends nothing for no items', async () => {
    await batchPut(doc, 't', []);
    expect(sent()).toEqual([]);
  });
});

describe('batchPut under sustained throttling', () => {
  it('gives up after 8 calls with a throttling error (a 503 to the caller), not an endless loop', async () => {
    const [a] = items(1);
    mock
      .on(BatchWriteCommand)
      .resolves({ UnprocessedItems: { t: [{ PutRequest: { Item: a! } }] } });
    const err = await batchPut(doc, 't', [a!]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect([(err as Error).name, (err as Error).message]).toEqual([
      'ThrottlingException',
      'BatchWriteItem left items unprocessed',
    ]);
    expect(sent()).toHaveLength(8);
  });
});
