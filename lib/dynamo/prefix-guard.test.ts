import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keysOutside } from './prefix-guard.js';

const T = 'table';

describe('keysOutside: the guard role’s LeadingKeys rule, without IAM', () => {
  it('passes the calls that keep to the environment, of every kind the stores send', () => {
    const inside = [
      new GetCommand({ TableName: T, Key: { pk: 'E#env-a#x', sk: '1' } }),
      new PutCommand({ TableName: T, Item: { pk: 'E#env-a#x', sk: '1' } }),
      new UpdateCommand({
        TableName: T,
        Key: { pk: 'E#env-a#x', sk: '1' },
        UpdateExpression: 'SET a = :a',
      }),
      new QueryCommand({
        TableName: T,
        KeyConditionExpression: '#p = :p AND begins_with(sk, :s)',
        ExpressionAttributeNames: { '#p': 'pk' },
        ExpressionAttributeValues: { ':p': 'E#env-a#x', ':s': 'A' },
      }),
      new QueryCommand({
        TableName: T,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :g',
        ExpressionAttributeValues: { ':g': 'E#env-a#list' },
      }),
      new BatchGetCommand({ RequestItems: { [T]: { Keys: [{ pk: 'E#env-a#1', sk: 'x' }] } } }),
      new BatchWriteCommand({
        RequestItems: {
          [T]: [
            { PutRequest: { Item: { pk: 'E#env-a#1', sk: 'x' } } },
            { DeleteRequest: { Key: { pk: 'E#env-a#2', sk: 'x' } } },
          ],
        },
      }),
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: T, Item: { pk: 'E#env-a#1', sk: 'x' } } },
          {
            ConditionCheck: {
              TableName: T,
              Key: { pk: 'E#env-a#2', sk: 'x' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
        ],
      }),
    ];
    for (const command of inside) expect(keysOutside('env-a', command)).toEqual([]);
  });

  it('names each key outside it: another environment, a prefix of the id, a shared item, a non-string', () => {
    expect(
      keysOutside(
        'env-a',
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: T, Item: { pk: 'E#env-a#1', sk: 'x' } } },
            { Put: { TableName: T, Item: { pk: 'E#env-b#1', sk: 'x' } } },
            { Delete: { TableName: T, Key: { pk: 'E#env-ab#1', sk: 'x' } } },
            {
              Update: {
                TableName: T,
                Key: { pk: 'JWKS', sk: 'x' },
                UpdateExpression: 'SET a = :a',
              },
            },
            { Put: { TableName: T, Item: { pk: 7, sk: 'x' } } },
          ],
        }),
      ),
    ).toEqual(['E#env-b#1', 'E#env-ab#1', 'JWKS', '7']);
  });

  it('refuses a call that names no key: a Scan, or a Query whose condition binds no partition', () => {
    expect(keysOutside('env-a', new ScanCommand({ TableName: T }))).toEqual(['(no key)']);
    expect(
      keysOutside(
        'env-a',
        new QueryCommand({
          TableName: T,
          IndexName: 'gsi1',
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': 'E#env-a#x' },
        }),
      ),
    ).toEqual(['undefined']);
  });
});
