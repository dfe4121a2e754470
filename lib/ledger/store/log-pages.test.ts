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
      reqs: ['r-3', '', 'r-5'],
    });
    expect(rawEntriesOf(page!)).toEqual([
      { body: entries[0]!.body, ev: '{}', req: 'r-3' },
      { body: entries[1]!.body, ev: '{}' },
      { body: entries[2]!.body, ev: '{}', req: 'r-5' },
    ]);
    expect(storedEntriesOf(page!).map((e) => e.log.id)).toEqual([3, 4, 5]);
  });

  it('names no requests on a page that has none (an atomic bulk)', () => {
    expect(logPages([single(1), single(2)])[0]).not.toHaveProperty('reqs');
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
