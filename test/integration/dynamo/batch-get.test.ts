import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchGetInOrder } from '../../../lib/dynamo/batch-get.js';
import { testTables } from '../../support/tables.js';

describe('batchGetInOrder', () => {
  it('reads more keys than one BatchGetItem takes, in the order asked, with holes for missing items', async () => {
    const { runtime } = await testTables();
    const table = runtime.config.tables.payments;
    const keys = Array.from({ length: 250 }, (_, i) => ({ pk: `K#${i}`, sk: 'S' }));
    for (let i = 0; i < keys.length; i += 25) {
      const chunk = keys.slice(i, i + 25).filter((_, j) => (i + j) % 7 !== 0);
      await runtime.doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [table]: chunk.map((k) => ({
              PutRequest: { Item: { ...k, n: Number(k.pk.slice(2)) } },
            })),
          },
        }),
      );
    }
    const asked = [...keys].reverse();
    const items = await batchGetInOrder(runtime.doc, table, asked);
    expect(items).toHaveLength(250);
    items.forEach((item, i) => {
      const n = 249 - i;
      if (n % 7 === 0) expect(item).toBeUndefined();
      else expect(item?.n).toBe(n);
    });
  });
});
