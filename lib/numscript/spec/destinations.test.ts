import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('destinations', () => {
  it('gives the units lost to flooring one each to the first clauses in written order', () => {
    // 10 * 1/3 = 3.33 each: floors 3+3+3, the one unit left goes to the first clause.
    const { postings } = run(
      'send [COIN 10] ( source = @world destination = { 1/3 to @a 1/3 to @b 1/3 to @c } )',
    );
    expect(postings).toEqual([
      ['world', 'a', 4n, 'COIN'],
      ['world', 'b', 3n, 'COIN'],
      ['world', 'c', 3n, 'COIN'],
    ]);
  });

  it('rounds `remaining` like any other clause, by its position', () => {
    // 100 * 87.5% = 87.5 and 100 * 12.5% = 12.5: floors 87 + 12, the unit goes to the first clause (remaining).
    const { postings } = run(
      'send [EUR/2 100] ( source = @world destination = { remaining to @seller 12.5% to @platform } )',
    );
    expect(postings).toEqual([
      ['world', 'seller', 88n, 'EUR/2'],
      ['world', 'platform', 12n, 'EUR/2'],
    ]);
  });

  it('can give a leftover unit to a 0% clause when it comes first (as the reference does)', () => {
    const { postings } = run(
      'send [COIN 1] ( source = @world destination = { 0% to @a 50% to @b 50% to @c } )',
    );
    expect(postings).toEqual([['world', 'a', 1n, 'COIN']]);
  });

  it('refuses portions that do not sum to 100% without remaining', () => {
    const error = failure(
      'send [COIN 10] ( source = @world destination = { 50% to @a 49% to @b } )',
    );
    expect(error).toMatchObject({ code: 'COMPILATION_FAILED', kind: 'InvalidAllotmentSum' });
    expect(error.message).toContain('got 99/100 instead');
  });

  it('pays allotment destinations from the sources in order, splitting postings where a source runs out', () => {
    const { postings } = run(
      'send [COIN 100] ( source = { @a @b } destination = { 50% to @c remaining to @d } )',
      {
        balances: { 'a/COIN': 60n, 'b/COIN': 40n },
      },
    );
    expect(postings).toEqual([
      ['a', 'c', 50n, 'COIN'],
      ['a', 'd', 10n, 'COIN'],
      ['b', 'd', 40n, 'COIN'],
    ]);
  });

  it('fills ordered destinations up to their max, the rest to remaining', () => {
    const { postings } = run(
      'send [COIN 100] ( source = @world destination = { max [COIN 10] to @a max [COIN 20] to @b remaining to @c } )',
    );
    expect(postings).toEqual([
      ['world', 'a', 10n, 'COIN'],
      ['world', 'b', 20n, 'COIN'],
      ['world', 'c', 70n, 'COIN'],
    ]);
  });

  it('skips remaining when the caps took everything', () => {
    const { postings } = run(
      'send [COIN 5] ( source = @world destination = { max [COIN 10] to @a remaining to @b } )',
    );
    expect(postings).toEqual([['world', 'a', 5n, 'COIN']]);
  });

  it('leaves `kept` funds with their source: no posting, and the source may use them again', () => {
    const script = `
      send [COIN 100] ( source = @a destination = { max [COIN 30] kept remaining to @b } )
      send [COIN 30] ( source = @a destination = @c )`;
    const { postings } = run(script, { balances: { 'a/COIN': 100n } });
    expect(postings).toEqual([
      ['a', 'b', 70n, 'COIN'],
      ['a', 'c', 30n, 'COIN'],
    ]);
  });

  it('keeps a portion of an allotment', () => {
    const { postings } = run(
      'send [COIN 100] ( source = @world destination = { 10% kept remaining to @b } )',
    );
    expect(postings).toEqual([['world', 'b', 90n, 'COIN']]);
  });

  it('nests destinations', () => {
    const script = `send [COIN 100] (
      source = @world
      destination = {
        max [COIN 10] to @a
        remaining to { 1/2 to @b remaining to { max [COIN 5] to @c remaining kept } }
      }
    )`;
    expect(run(script).postings).toEqual([
      ['world', 'a', 10n, 'COIN'],
      ['world', 'b', 45n, 'COIN'],
      ['world', 'c', 5n, 'COIN'],
    ]);
  });

  it('gives nothing, and no posting, to a clause whose share is zero', () => {
    const { postings } = run(
      'send [COIN 1] ( source = @world destination = { 1/2 to @a 1/2 to @b } )',
    );
    expect(postings).toEqual([['world', 'a', 1n, 'COIN']]);
  });
});
