import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('send [ASSET *]', () => {
  it('sends the whole balance of each source', () => {
    const { postings } = run(
      'send [USD/2 *] ( source = { @a @b } destination = { 1/3 to @c 2/3 to @d } )',
      {
        balances: { 'a/USD/2': 15n, 'b/USD/2': 15n },
      },
    );
    expect(postings).toEqual([
      ['a', 'c', 10n, 'USD/2'],
      ['a', 'd', 5n, 'USD/2'],
      ['b', 'd', 15n, 'USD/2'],
    ]);
  });

  it('includes a bounded overdraft, and sends nothing from an overdrawn account', () => {
    expect(
      run('send [COIN *] ( source = @a allowing overdraft up to [COIN 10] destination = @b )', {
        balances: { 'a/COIN': 5n },
      }).postings,
    ).toEqual([['a', 'b', 15n, 'COIN']]);
    expect(
      run('send [COIN *] ( source = @a destination = @b )', { balances: { 'a/COIN': -5n } })
        .postings,
    ).toEqual([]);
  });

  it('takes at most max from a capped source', () => {
    const { postings } = run(
      'send [COIN *] ( source = { max [COIN 10] from @a @b } destination = @c )',
      {
        balances: { 'a/COIN': 100n, 'b/COIN': 1n },
      },
    );
    expect(postings).toEqual([
      ['a', 'c', 10n, 'COIN'],
      ['b', 'c', 1n, 'COIN'],
    ]);
  });

  it('refuses @world and unbounded overdrafts (there is no "all")', () => {
    expect(failure('send [COIN *] ( source = @world destination = @b )').kind).toBe(
      'InvalidUnboundedInSendAll',
    );
    expect(
      failure('send [COIN *] ( source = @a allowing unbounded overdraft destination = @b )').kind,
    ).toBe('InvalidUnboundedInSendAll');
  });

  it('refuses an allotment source', () => {
    expect(
      failure('send [COIN *] ( source = { 50% from @a remaining from @b } destination = @c )').kind,
    ).toBe('InvalidAllotmentInSendAll');
  });

  it('sends nothing from an empty account', () => {
    expect(run('send [COIN *] ( source = @a destination = @b )').postings).toEqual([]);
  });
});
