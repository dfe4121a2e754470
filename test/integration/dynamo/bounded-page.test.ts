import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { boundedQueryPage } from '../../../lib/dynamo/bounded-page.js';
import { decodeCursor, encodeCursor, type ListQuery } from '../../../lib/pagination/cursor.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let table: string;
const list = 'test.bounded';
/** 36 items; those whose number is a multiple of 7 are kept by the filter, so most reads find nothing. */
const kept = Array.from({ length: 36 }, (_, i) => i).filter((n) => n % 7 === 0);

beforeAll(async () => {
  ({ runtime } = await testTables());
  table = runtime.config.tables.ledger;
  const items = Array.from({ length: 36 }, (_, n) => ({
    pk: 'BOUNDED',
    sk: String(n).padStart(3, '0'),
    n,
    kept: n % 7 === 0,
  }));
  for (let i = 0; i < items.length; i += 25) {
    await runtime.doc.send(
      new BatchWriteCommand({
        RequestItems: { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
});

function page(query: ListQuery, ascending = true, readBudget = 5) {
  return boundedQueryPage(
    runtime.doc,
    {
      input: {
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        FilterExpression: 'kept = :y',
        ExpressionAttributeValues: { ':p': 'BOUNDED', ':y': true },
        ConsistentRead: true,
      },
      keyAttributes: ['pk', 'sk'],
      list,
      ascending,
      filters: { kept: 'true' },
      readBudget,
    },
    query,
    (item) => Number(item.n),
  );
}

describe('boundedQueryPage', () => {
  it('reads at most its budget a page, stops short (even empty) with a cursor that resumes there, and finds every item once', async () => {
    for (const ascending of [true, false]) {
      const seen: number[] = [];
      let pages = 0;
      let short = 0;
      let current = await page({ pageSize: 3 }, ascending);
      for (;;) {
        pages++;
        seen.push(...current.data);
        if (!current.hasMore) break;
        if (current.data.length < 3) short++;
        expect(current.next).toBeDefined();
        expect(decodeCursor(current.next!, list).f).toEqual({ kept: 'true' });
        current = await page({ pageSize: 3, cursor: decodeCursor(current.next!, list) }, ascending);
      }
      expect(seen).toEqual(ascending ? kept : [...kept].reverse());
      // 36 items at 5 reads a page: at least 7 pages, most of them short.
      expect(pages).toBeGreaterThanOrEqual(7);
      expect(short).toBeGreaterThan(3);
    }
  });

  it('fills a page when the budget allows, and walks back with previous cursors', async () => {
    const first = await page({ pageSize: 3 }, true, 100);
    expect(first.data).toEqual([0, 7, 14]);
    expect(first.previous).toBeUndefined();
    const second = await page({ pageSize: 3, cursor: decodeCursor(first.next!, list) }, true, 100);
    expect(second.data).toEqual([21, 28, 35]);
    const back = await page(
      { pageSize: 3, cursor: decodeCursor(second.previous!, list) },
      true,
      100,
    );
    expect(back.data).toEqual([0, 7, 14]);
    expect(back.hasMore).toBe(true);
    // Backwards on a small budget: pages stay in listing order, and the walk still reaches the first item.
    const seen: number[][] = [];
    let current = await page(
      { pageSize: 2, cursor: decodeCursor(second.previous!, list) },
      true,
      5,
    );
    for (;;) {
      seen.unshift(current.data);
      if (!current.previous) break;
      current = await page({ pageSize: 2, cursor: decodeCursor(current.previous, list) }, true, 5);
    }
    expect(seen.flat()).toEqual([0, 7, 14]);
  });

  it('refuses a cursor whose key is not of this query', async () => {
    const forged = decodeCursor(
      encodeCursor({ l: list, p: 3, d: 'n', k: { pk: 'BOUNDED' } }),
      list,
    );
    await expect(page({ pageSize: 3, cursor: forged })).rejects.toThrow(
      'cursor: not a cursor of this list',
    );
  });
});
