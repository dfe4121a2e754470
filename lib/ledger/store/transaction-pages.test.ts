import { describe, expect, it } from 'vitest';
import type { CommitWrite } from './decide-batch.js';
import { type ItemKey, keyString, ledgerKeys } from './keys.js';
import {
  beyondPosition,
  foldTransactionPages,
  holderOfPosition,
  MAX_TRANSACTION_PAGE_BYTES,
  pageItem,
  pageWith,
  transactionIn,
  transactionPages,
  transactionRecords,
} from './transaction-pages.js';

const ledger = {
  environment: 'default',
  name: 'p',
  transactionKeys: { blockIds: 4, timeShards: 3 },
};
const T = '2026-11-29T10:00:00.000000Z';
const keyOf = (id: number) => ledgerKeys.transaction(ledger, id);

/** A transaction's own item, as change-items writes it (the body: the exact JSON text). */
function item(id: number, timestamp = T, extra = ''): Record<string, unknown> {
  return {
    ...keyOf(id),
    gsi1pk: ledgerKeys.transactionsByTime(ledger, id),
    gsi1sk: ledgerKeys.transactionTimeSort(timestamp, id),
    id,
    timestamp,
    body: `{"id":${id},"postings":[],"metadata":{"n":"${id}${extra}"},"postCommitVolumes":{}}`,
  };
}

const put = (i: Record<string, unknown>, deferrable = true): CommitWrite => ({
  item: { Put: { TableName: 't', Item: i } },
  ...(deferrable ? { deferrable: true } : {}),
});

describe('transaction pages', () => {
  it('gather consecutive ids of one block and one timestamp; a run of one stays its own item', () => {
    const items = [1, 2, 3, 4, 5, 7, 8].map((id) => item(id, id === 5 ? '2026-01-01' : T));
    const runs = transactionPages(items).map((run) => run.map((i) => i.id));
    // Blocks of 4 ids: 1-3 | 4-7; 5 has a timestamp of its own; 6 is missing.
    expect(runs).toEqual([[1, 2, 3], [4], [5], [7], [8]].map((r) => r));
    const page = pageItem(transactionPages(items)[0]!);
    expect(page).toMatchObject({ ...keyOf(1), id: 1, last: 3, timestamp: T });
    expect(page.gsi1sk).toBe(item(1).gsi1sk);
    expect(pageItem([items[5]!])).toBe(items[5]);
  });

  it('cut a run at MAX_TRANSACTION_PAGE_BYTES of texts', () => {
    const big = 'x'.repeat(MAX_TRANSACTION_PAGE_BYTES / 2 - 100);
    const items = [4, 5, 6].map((id) => item(id, T, big));
    expect(transactionPages(items).map((run) => run.map((i) => i.id))).toEqual([[4, 5], [6]]);
  });

  it('hold each transaction exactly, and a change replaces one of them only', () => {
    const page = pageItem([1, 2, 3].map((id) => item(id)));
    expect([0, 1, 2, 3, 4].map((id) => transactionIn(page, id)?.tx.metadata)).toEqual([
      undefined,
      { n: '1' },
      { n: '2' },
      { n: '3' },
      undefined,
    ]);
    const changed = pageWith(page, 2, String(item(2, T, '-changed').body));
    expect([1, 2, 3].map((id) => transactionIn(changed, id)?.tx.metadata.n)).toEqual([
      '1',
      '2-changed',
      '3',
    ]);
    expect(transactionIn(page, 2)?.tx.metadata.n).toBe('2');
  });

  it('list record by record, each positioned so a cursor inside the page finds it again', () => {
    const page = pageItem([4, 5, 6].map((id) => item(id)));
    const records = transactionRecords(page);
    expect(records.map((r) => [r.sk, r.gsi1sk, r.id])).toEqual(
      [4, 5, 6].map((id) => [
        `000000000000004#${String(id).padStart(15, '0')}`,
        ledgerKeys.transactionTimeSort(T, id),
        id,
      ]),
    );
    const position = { pk: String(records[1]!.pk), sk: String(records[1]!.sk) };
    expect(holderOfPosition(position)).toEqual(keyOf(4));
    expect(records.map((r) => beyondPosition(r, position, 'id', true))).toEqual([
      false,
      false,
      true,
    ]);
    expect(records.map((r) => beyondPosition(r, position, 'id', false))).toEqual([
      true,
      false,
      false,
    ]);
    // The page's first record names the page too; an item's own key names none.
    expect(holderOfPosition({ pk: 'p', sk: String(records[0]!.sk) })).toEqual({
      pk: 'p',
      sk: '000000000000004',
    });
    expect(holderOfPosition(keyOf(4) as Record<string, string>)).toBeUndefined();
    // A walk's block ends are between items.
    expect(beyondPosition(records[0]!, { pk: 'x', sk: '~' }, 'id', true)).toBe(true);
    const at = { gsi1sk: String(records[2]!.gsi1sk) };
    expect(records.map((r) => beyondPosition(r, at, 'time', false))).toEqual([true, true, false]);
    expect(transactionRecords(item(9))).toEqual([item(9)]);
  });

  it("fold a commit's new transactions into pages, as the commit leaves them, and show them in the view", () => {
    const view = new Map<string, Record<string, unknown>>();
    const created = [1, 2, 3, 4].map((id) => item(id));
    const changed = item(2, T, '-reverted');
    for (const i of [...created, changed]) view.set(keyString(i as ItemKey), i);
    const other: CommitWrite = put({ pk: 'E#default#L#p#V', sk: 'x' }, false);
    const writes = [...created.map((i) => put(i)), put(changed, false), other];
    const folded = foldTransactionPages(ledger, view, writes);
    // 1-3 one page (2 written twice: in the commit, not after it); 4 alone in its block keeps its own item.
    expect(folded.map((w) => [w.item.Put!.Item.id, w.item.Put!.Item.last, w.deferrable])).toEqual([
      [4, undefined, true],
      [undefined, undefined, undefined],
      [1, 3, undefined],
    ]);
    const page = folded[2]!.item.Put!.Item;
    expect(transactionIn(page, 2)?.tx.metadata.n).toBe('2-reverted');
    expect([1, 2, 3].map((id) => view.get(keyString(keyOf(id))))).toEqual([page, page, page]);

    const once = foldTransactionPages(ledger, new Map(), [put(item(5)), put(item(6))]);
    expect(once.map((w) => [w.item.Put!.Item.id, w.item.Put!.Item.last, w.deferrable])).toEqual([
      [5, 6, true],
    ]);
    expect(foldTransactionPages(ledger, view, [put(item(7)), other])).toHaveLength(2);
    // A ledger created before blocks keeps one item a transaction.
    const unblocked = { environment: 'default', name: 'old' };
    const plain = [put(item(5)), put(item(6))];
    expect(foldTransactionPages(unblocked, new Map(), plain)).toEqual(plain);
  });
});
