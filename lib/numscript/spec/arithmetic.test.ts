import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('arithmetic', () => {
  it('adds and subtracts monetaries of one asset', () => {
    const script = `vars { monetary $a monetary $b }
      send $a + $b - [COIN 1] ( source = @world destination = @x )`;
    expect(run(script, { vars: { a: 'COIN 10', b: 'COIN 5' } }).postings).toEqual([
      ['world', 'x', 14n, 'COIN'],
    ]);
  });

  it('refuses monetaries of different assets', () => {
    const script =
      'vars { monetary $a monetary $b } send $a + $b ( source = @world destination = @x )';
    expect(failure(script, { vars: { a: 'COIN 10', b: 'USD 5' } }).kind).toBe('MismatchedCurrency');
  });

  it('computes numbers beyond 64 bits, left to right', () => {
    const script = 'set_tx_meta("n", 18446744073709551615 + 18446744073709551615 - 1 - 1_000)';
    expect(run(script).txMetadata).toEqual({ n: '36893488147419102229' });
  });

  it('builds a monetary from an asset and a number expression', () => {
    const script = 'vars { number $n } send [COIN $n + 1] ( source = @world destination = @x )';
    expect(run(script, { vars: { n: '41' } }).postings).toEqual([['world', 'x', 42n, 'COIN']]);
  });

  it('divides numbers into a portion and refuses a zero divisor', () => {
    expect(run('set_tx_meta("p", 6/8)').txMetadata).toEqual({ p: '3/4' });
    expect(failure('vars { number $z } set_tx_meta("p", 1/$z)', { vars: { z: '0' } }).kind).toBe(
      'DivideByZero',
    );
  });

  it('refuses adding a number to a monetary at compile time', () => {
    expect(failure('send [COIN 1] + 1 ( source = @world destination = @x )')).toMatchObject({
      code: 'COMPILATION_FAILED',
      kind: 'TypeError',
    });
  });

  it('ignores comments anywhere blanks are allowed', () => {
    const script = `// leading comment
      send /* inline */ [COIN 3] ( // trailing
        source = @world /* nested /* comment */ still comment */
        destination = @x
      ) // last line without newline`;
    expect(run(script).postings).toEqual([['world', 'x', 3n, 'COIN']]);
  });
});
