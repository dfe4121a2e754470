import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('sources', () => {
  it('sends from a single account with enough funds', () => {
    const { postings } = run('send [USD/2 100] ( source = @alice destination = @bob )', {
      balances: { 'alice/USD/2': 150n },
    });
    expect(postings).toEqual([['alice', 'bob', 100n, 'USD/2']]);
  });

  it('fails with INSUFFICIENT_FUND naming what was needed and what was available', () => {
    const error = failure('send [USD/2 100] (\n  source = @alice\n  destination = @bob\n)', {
      balances: { 'alice/USD/2': 99n },
    });
    expect(error.code).toBe('INSUFFICIENT_FUND');
    expect(error.message).toBe(
      'Not enough funds. Needed [USD/2 100] (only [USD/2 99] available) (line 2, column 12)',
    );
  });

  it('lets @world go unboundedly negative without reading its balance', () => {
    const { postings, reads } = run(
      'send [COIN 1000000000000000000000000] ( source = @world destination = @a )',
    );
    expect(postings).toEqual([['world', 'a', 1000000000000000000000000n, 'COIN']]);
    expect(reads).toEqual([]);
  });

  it('takes from ordered sources first to last, one posting per source', () => {
    const { postings } = run('send [COIN 100] ( source = { @a @b @c } destination = @d )', {
      balances: { 'a/COIN': 30n, 'b/COIN': 50n, 'c/COIN': 70n },
    });
    expect(postings).toEqual([
      ['a', 'd', 30n, 'COIN'],
      ['b', 'd', 50n, 'COIN'],
      ['c', 'd', 20n, 'COIN'],
    ]);
  });

  it('skips a source with a zero or negative balance', () => {
    const { postings } = run('send [COIN 10] ( source = { @a @b @world } destination = @d )', {
      balances: { 'a/COIN': 0n, 'b/COIN': -5n },
    });
    expect(postings).toEqual([['world', 'd', 10n, 'COIN']]);
  });

  it('allows a bounded overdraft, counted from the current balance', () => {
    const script =
      'send [COIN 100] ( source = @a allowing overdraft up to [COIN 30] destination = @b )';
    expect(run(script, { balances: { 'a/COIN': 70n } }).postings).toEqual([
      ['a', 'b', 100n, 'COIN'],
    ]);
    expect(failure(script, { balances: { 'a/COIN': 69n } }).code).toBe('INSUFFICIENT_FUND');
    // Already overdrawn by 10: only 20 more may go.
    expect(failure(script, { balances: { 'a/COIN': -10n } }).message).toContain(
      'only [COIN 20] available',
    );
  });

  it('allows an unbounded overdraft without reading the balance', () => {
    const { postings, reads } = run(
      'send [COIN 500] ( source = @a allowing unbounded overdraft destination = @b )',
    );
    expect(postings).toEqual([['a', 'b', 500n, 'COIN']]);
    expect(reads).toEqual([]);
  });

  it('caps a source with max, then moves on to the next', () => {
    const { postings } = run(
      'send [COIN 100] ( source = { max [COIN 40] from @a @b } destination = @c )',
      {
        balances: { 'a/COIN': 1000n, 'b/COIN': 1000n },
      },
    );
    expect(postings).toEqual([
      ['a', 'c', 40n, 'COIN'],
      ['b', 'c', 60n, 'COIN'],
    ]);
  });

  it('treats a negative max as zero', () => {
    const { postings } = run(
      'send [COIN 10] ( source = { max [COIN -5] from @a @world } destination = @c )',
      {
        balances: { 'a/COIN': 100n },
      },
    );
    expect(postings).toEqual([['world', 'c', 10n, 'COIN']]);
  });

  it('splits a source allotment, each part taken exactly from its own source', () => {
    const { postings } = run(
      'send [COIN 100] ( source = { 30% from @a remaining from @b } destination = @c )',
      {
        balances: { 'a/COIN': 30n, 'b/COIN': 70n },
      },
    );
    expect(postings).toEqual([
      ['a', 'c', 30n, 'COIN'],
      ['b', 'c', 70n, 'COIN'],
    ]);
    expect(
      failure('send [COIN 100] ( source = { 30% from @a remaining from @b } destination = @c )', {
        balances: { 'a/COIN': 29n, 'b/COIN': 1000n },
      }).code,
    ).toBe('INSUFFICIENT_FUND');
  });

  it('merges neighbouring pieces of one account into one posting, but not pieces apart', () => {
    const balances = { 'a/COIN': 100n, 'b/COIN': 100n };
    expect(
      run('send [COIN 30] ( source = { max [COIN 10] from @a @a } destination = @c )', { balances })
        .postings,
    ).toEqual([['a', 'c', 30n, 'COIN']]);
    expect(
      run(
        'send [COIN 30] ( source = { max [COIN 10] from @a max [COIN 10] from @b @a } destination = @c )',
        { balances },
      ).postings,
    ).toEqual([
      ['a', 'c', 10n, 'COIN'],
      ['b', 'c', 10n, 'COIN'],
      ['a', 'c', 10n, 'COIN'],
    ]);
  });

  it('counts a second overdraft on the same account from what the first one already took', () => {
    // @s starts at 0: the first clause takes 2 (down to -2), the second may go to -5, so 3 more; one merged posting.
    const script = `send [COIN 10] ( source = {
      @s allowing overdraft up to [COIN 2]
      @s allowing overdraft up to [COIN 5]
      @world
    } destination = @dest )`;
    expect(run(script).postings).toEqual([
      ['s', 'dest', 5n, 'COIN'],
      ['world', 'dest', 5n, 'COIN'],
    ]);
  });

  it('sees funds an earlier statement moved (balances are tracked through the script)', () => {
    const script = `
      send [COIN 60] ( source = @a destination = @b )
      send [COIN 60] ( source = { @a @b } destination = @c )`;
    const { postings } = run(script, { balances: { 'a/COIN': 100n } });
    expect(postings).toEqual([
      ['a', 'b', 60n, 'COIN'],
      ['a', 'c', 40n, 'COIN'],
      ['b', 'c', 20n, 'COIN'],
    ]);
  });

  it('sends zero without any posting', () => {
    expect(run('send [COIN 0] ( source = @a destination = @b )').postings).toEqual([]);
  });

  it('refuses a negative amount', () => {
    expect(failure('send [COIN -1] ( source = @world destination = @b )')).toMatchObject({
      code: 'COMPILATION_FAILED',
      kind: 'NegativeAmount',
    });
  });

  it('refuses a cap or overdraft bound in another asset', () => {
    expect(
      failure('send [COIN 1] ( source = max [USD 5] from @world destination = @b )').kind,
    ).toBe('MismatchedCurrency');
    expect(
      failure('send [COIN 1] ( source = @a allowing overdraft up to [USD 5] destination = @b )')
        .kind,
    ).toBe('MismatchedCurrency');
  });
});
