import { LosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { NumscriptError, varsFromRequest } from '../index.js';
import { run } from './support.js';

describe('request vars', () => {
  it('keeps strings, prints numbers, and joins {asset, amount} monetaries', () => {
    expect(
      varsFromRequest({
        s: 'users:001',
        n: 42,
        big: 123456789012345678901234567890n,
        lossless: new LosslessNumber('98765432109876543210'),
        m: { asset: 'USD/2', amount: 1500 },
        m2: { asset: 'EUR', amount: new LosslessNumber('10000000000000000000001') },
      }),
    ).toEqual({
      s: 'users:001',
      n: '42',
      big: '123456789012345678901234567890',
      lossless: '98765432109876543210',
      m: 'USD/2 1500',
      m2: 'EUR 10000000000000000000001',
    });
  });

  it('runs with a v1-style monetary', () => {
    const vars = varsFromRequest({ amount: { asset: 'COIN', amount: 7 } });
    expect(
      run('vars { monetary $amount } send $amount ( source = @world destination = @a )', { vars })
        .postings,
    ).toEqual([['world', 'a', 7n, 'COIN']]);
  });

  it.each([[1.5], [true], [null], [{ asset: 'USD' }], [[1]], [2 ** 60]])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() => varsFromRequest({ v: value })).toThrow(NumscriptError);
      expect(() => varsFromRequest({ v: value })).toThrow('$v');
    },
  );
});
