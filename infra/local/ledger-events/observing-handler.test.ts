import { describe, expect, it } from 'vitest';
import { ledgerWritesOf } from './observing-handler.js';

const tables = new Set(['ledger', 'bucket-heavy']);
const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });

describe('ledgerWritesOf', () => {
  it("names each ledger-table item of a transaction, with a Put's item, and no other table's", () => {
    const put = { ...key('E#default#L#a#LOG', '000000000000007'), ev: { S: '{}' } };
    const body = JSON.stringify({
      TransactItems: [
        { Put: { TableName: 'ledger', Item: put } },
        { Update: { TableName: 'ledger', Key: key('E#default#L#a', 'HEAD') } },
        { Delete: { TableName: 'bucket-heavy', Key: key('E#b#L#x#IK#k', 'IK') } },
        { Put: { TableName: 'webhooks', Item: key('E#default#CFG#1', 'CFG') } },
        { ConditionCheck: { TableName: 'ledger', Key: key('E#default#L#a', 'MAPPING') } },
      ],
    });
    expect(ledgerWritesOf('DynamoDB_20120810.TransactWriteItems', body, tables)).toEqual([
      { table: 'ledger', pk: 'E#default#L#a#LOG', sk: '000000000000007', item: put },
      { table: 'ledger', pk: 'E#default#L#a', sk: 'HEAD' },
      { table: 'bucket-heavy', pk: 'E#b#L#x#IK#k', sk: 'IK' },
    ]);
  });

  it('reads single writes and batches, and a body that names no ledger table as nothing', () => {
    const item = key('E#default#L#a', 'MAPPING');
    expect(
      ledgerWritesOf(
        'DynamoDB_20120810.PutItem',
        JSON.stringify({ TableName: 'ledger', Item: item }),
        tables,
      ),
    ).toEqual([{ table: 'ledger', pk: 'E#default#L#a', sk: 'MAPPING', item }]);
    expect(
      ledgerWritesOf(
        'DynamoDB_20120810.UpdateItem',
        JSON.stringify({ TableName: 'bucket-heavy', Key: key('E#e#L#p#PIPE', 'PIPELINE#1') }),
        tables,
      ),
    ).toEqual([{ table: 'bucket-heavy', pk: 'E#e#L#p#PIPE', sk: 'PIPELINE#1' }]);
    const batch = JSON.stringify({
      RequestItems: {
        ledger: [
          { PutRequest: { Item: key('E#default#L#a#TX#0', '1') } },
          { DeleteRequest: { Key: key('E#default#L#a#RES#r', 'RES') } },
        ],
        events: [{ PutRequest: { Item: key('E#default#EVENT#1', 'EVENT') } }],
      },
    });
    expect(ledgerWritesOf('DynamoDB_20120810.BatchWriteItem', batch, tables)).toEqual([
      { table: 'ledger', pk: 'E#default#L#a#TX#0', sk: '1', item: key('E#default#L#a#TX#0', '1') },
      { table: 'ledger', pk: 'E#default#L#a#RES#r', sk: 'RES' },
    ]);
    expect(
      ledgerWritesOf(
        'DynamoDB_20120810.PutItem',
        JSON.stringify({ TableName: 'payments', Item: item }),
        tables,
      ),
    ).toEqual([]);
    expect(ledgerWritesOf('DynamoDB_20120810.PutItem', '', tables)).toEqual([]);
  });
});
