/** How a commit's log entries become items (lib/ledger/store/log-pages.ts), without DynamoDB. */
import { describe, expect, it } from 'vitest';
import { logPages, MAX_LOG_PAGE_BYTES, rawEntriesOf, storedEntriesOf } from './log-pages.js';

const single = (id: number, bodyBytes = 100, req?: string) => {
  const body = JSON.stringify({
    id,
    type: 'SET_METADATA',
    data: { targetType: 'ACCOUNT', targetId: 'a', metadata: { pad: 'x'.repeat(bodyBytes) } },
    date: '2026-01-01T00:00:00Z',
    idempotencyKey: '',
    hash: '',
  });
  return {
    pk: 'E#default#L#l#LOG',
    sk: String(id).padStart(15, '0'),
    id,
    type: 'SET_METADATA',
    date: '2026-01-01T00:00:00Z',
    body,
    ev: '{}',
    ...(req ? { req } : {}),
  };
};

describe('logPages', () => {
  it('keeps one entry as the single-entry item it always was', () => {
    const one = single(7, 10, 'r-7');
    expect(logPages([one])).toEqual([one]);
    expect(rawEntriesOf(one)).toEqual([{ body: one.body, ev: '{}', req: 'r-7' }]);
  });

  it('gathers several entries into one page keyed by the first, each entry read back exactly', () => {
    const entries = [single(3, 10, 'r-3'), single(4, 10), single(5, 10, 'r-5')];
    const [page, ...rest] = logPages(entries);
    expect(rest).toEqual([]);
    expect(page).toMatchObject({
      pk: 'E#default#L#l#LOG',
      sk: '000000000000003',
      id: 3,
      last: 5,
      ev: '',
    });
    expect(page).not.toHaveProperty('bodies');
    expect(page!.z).toBeInstanceOf(Uint8Array);
    expect(rawEntriesOf(page!)).toEqual([
      { body: entries[0]!.body, ev: '{}', req: 'r-3' },
      { body: entries[1]!.body, ev: '{}' },
      { body: entries[2]!.body, ev: '{}', req: 'r-5' },
    ]);
    expect(storedEntriesOf(page!).map((e) => e.log.id)).toEqual([3, 4, 5]);
  });

  it('names no requests on a page that has none (an atomic bulk)', () => {
    expect(rawEntriesOf(logPages([single(1), single(2)])[0]!).map((e) => e.req)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('stores a page deflated: a batch of similar entries takes a fraction of its text', () => {
    const entries = Array.from({ length: 80 }, (_, i) => single(i + 1, 300, `req-${i + 1}`));
    const [page] = logPages(entries);
    const text = entries.reduce((n, e) => n + e.body.length + e.ev.length + e.req!.length, 0);
    expect((page!.z as Uint8Array).byteLength).toBeLessThan(text / 4);
    expect(rawEntriesOf(page!).map((e) => e.body)).toEqual(entries.map((e) => e.body));
  });

  it('reads a page written before pages were deflated (plain bodies, ev and reqs)', () => {
    const entries = [single(3, 10, 'r-3'), single(4, 10)];
    const plain = {
      pk: 'E#default#L#l#LOG',
      sk: '000000000000003',
      id: 3,
      last: 4,
      bodies: entries.map((e) => e.body),
      ev: JSON.stringify(['{"a":1}', '{}']),
      reqs: ['r-3', ''],
    };
    expect(rawEntriesOf(plain)).toEqual([
      { body: entries[0]!.body, ev: '{"a":1}', req: 'r-3' },
      { body: entries[1]!.body, ev: '{}' },
    ]);
  });

  it('splits entries past the page size into consecutive pages, none over it', () => {
    const entries = Array.from({ length: 7 }, (_, i) => single(i + 1, 100_000));
    const pages = logPages(entries);
    expect(pages.map((p) => [p.id, p.last])).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
      [7, undefined],
    ]);
    for (const page of pages)
      expect(JSON.stringify(page).length).toBeLessThan(MAX_LOG_PAGE_BYTES + 10_000);
    expect(pages.flatMap((p) => storedEntriesOf(p).map((e) => e.log.id))).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);
  });
});
