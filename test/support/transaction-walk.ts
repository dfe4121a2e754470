import { expect } from 'vitest';
import type { ledgerClient } from './ledger.js';

type Call = Awaited<ReturnType<typeof ledgerClient>>['call'];

export type ListBody = {
  cursor: { data: Array<{ id: bigint }>; next?: string; previous?: string; hasMore: boolean };
};

export const idsOf = (body: ListBody) => body.cursor.data.map((t) => Number(t.id));

/** Every page of a ledger's transaction listing, following `next`, then back along `previous` from the last page. */
export async function walkTransactions(
  call: Call,
  ledger: string,
  path: string,
): Promise<{ forward: number[][]; backward: number[][] }> {
  const page = async (cursor: string) => {
    const res = await call('GET', `/v2/${ledger}/transactions?cursor=${cursor}`);
    expect(res.status, res.text).toBe(200);
    return res.body as ListBody;
  };
  const forward: number[][] = [];
  let body = (await call('GET', path)).body as ListBody;
  forward.push(idsOf(body));
  while (body.cursor.next) {
    body = await page(body.cursor.next);
    forward.push(idsOf(body));
  }
  const backward: number[][] = [];
  while (body.cursor.previous) {
    body = await page(body.cursor.previous);
    backward.push(idsOf(body));
  }
  return { forward, backward };
}

/** Ids in pages of `size`. */
export const chunks = (ids: number[], size: number) =>
  Array.from({ length: Math.ceil(ids.length / size) }, (_, i) =>
    ids.slice(i * size, i * size + size),
  );
