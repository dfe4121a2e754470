import { describe, expect, it } from 'vitest';
import { findConversions } from '../scaling.js';
import { failure, run } from './support.js';

const FLAG = { featureFlags: ['experimental-asset-scaling'] };
const send = (monetary: string) => `send ${monetary} (
  source = @src with scaling through @swap
  destination = @dest
)`;

describe('asset scaling: @acc with scaling through @swap', () => {
  it('converts a coarser scale into the one sent, in whole units, giving back the spare', () => {
    const { postings } = run(send('[EUR/2 250]'), {
      ...FLAG,
      balances: { 'src/EUR': 7n, 'src/EUR/2': 30n },
    });
    // 30 held at the sent scale count first; 220 more take 3 whole EUR (300), 80 of them stay on @src.
    expect(postings).toEqual([
      ['src', 'swap', 3n, 'EUR'],
      ['swap', 'src', 300n, 'EUR/2'],
      ['src', 'dest', 250n, 'EUR/2'],
    ]);
  });

  it('converts a finer scale, leaving the units that do not make a whole one', () => {
    const { postings } = run(send('[EUR/2 5]'), {
      ...FLAG,
      balances: { 'src/EUR/4': 50_099n },
    });
    expect(postings).toEqual([
      ['src', 'swap', 500n, 'EUR/4'],
      ['swap', 'src', 5n, 'EUR/2'],
      ['src', 'dest', 5n, 'EUR/2'],
    ]);
  });

  it('tries the finest scales first and stops once enough is converted', () => {
    const { postings } = run(send('[USD/2 1001]'), {
      ...FLAG,
      balances: { 'src/USD': 50n, 'src/USD/1': 3n, 'src/USD/3': 10_009n },
    });
    expect(postings).toEqual([
      ['src', 'swap', 10_000n, 'USD/3'],
      ['src', 'swap', 1n, 'USD/1'],
      ['swap', 'src', 1010n, 'USD/2'],
      ['src', 'dest', 1001n, 'USD/2'],
    ]);
  });

  it('converts nothing when the sent scale holds enough', () => {
    const { postings } = run(send('[EUR/2 40]'), {
      ...FLAG,
      balances: { 'src/EUR/2': 40n, 'src/EUR': 9n },
    });
    expect(postings).toEqual([['src', 'dest', 40n, 'EUR/2']]);
  });

  it('fails with missing funds when every scale together is short, naming the sent asset', () => {
    const error = failure(send('[EUR/2 400]'), {
      ...FLAG,
      balances: { 'src/EUR': 2n, 'src/EUR/2': 150n, 'src/EUR/3': 49n },
    });
    expect(error).toMatchObject({ code: 'INSUFFICIENT_FUND', kind: 'MissingFunds' });
    expect(error.message).toContain('Needed [EUR/2 400] (only [EUR/2 354] available)');
  });

  it('send all converts everything that makes whole units', () => {
    const { postings } = run(send('[EUR/2 *]'), {
      ...FLAG,
      balances: { 'src/EUR': 1n, 'src/EUR/2': 4n, 'src/EUR/3': 25n },
    });
    expect(postings).toEqual([
      ['src', 'swap', 20n, 'EUR/3'],
      ['src', 'swap', 1n, 'EUR'],
      ['swap', 'src', 102n, 'EUR/2'],
      ['src', 'dest', 106n, 'EUR/2'],
    ]);
  });

  it('a kept destination leaves the converted funds on the account', () => {
    const script = `send [BTC/2 *] (
      source = @acc with scaling through @swap
      destination = { remaining kept }
    )`;
    const { postings } = run(script, { ...FLAG, balances: { 'acc/BTC/8': 3_000_000n } });
    expect(postings).toEqual([
      ['acc', 'swap', 3_000_000n, 'BTC/8'],
      ['swap', 'acc', 3n, 'BTC/2'],
    ]);
  });

  it('in an ordered source, conversions are posted when the source is reached, before any send', () => {
    const script = `send [EUR/2 120] (
      source = { @a @b with scaling through @swap }
      destination = @dest
    )`;
    const { postings } = run(script, {
      ...FLAG,
      balances: { 'a/EUR/2': 70n, 'b/EUR/3': 1000n },
    });
    expect(postings).toEqual([
      ['b', 'swap', 500n, 'EUR/3'],
      ['swap', 'b', 50n, 'EUR/2'],
      ['a', 'dest', 70n, 'EUR/2'],
      ['b', 'dest', 50n, 'EUR/2'],
    ]);
  });

  it('later statements see the swap account credited and debited', () => {
    const script = `send [EUR/2 1] ( source = @src with scaling through @swap destination = @dest )
      send [EUR *] ( source = @swap destination = @out )`;
    const { postings } = run(script, { ...FLAG, balances: { 'src/EUR': 2n } });
    expect(postings).toEqual([
      ['src', 'swap', 1n, 'EUR'],
      ['swap', 'src', 100n, 'EUR/2'],
      ['src', 'dest', 1n, 'EUR/2'],
      ['swap', 'out', 1n, 'EUR'],
    ]);
  });

  it('a oneof branch that falls short takes its conversions back with it', () => {
    const script = `send [EUR/2 500] (
      source = oneof { @a with scaling through @swap @b }
      destination = @dest
    )`;
    const { postings } = run(script, {
      featureFlags: ['experimental-asset-scaling', 'experimental-oneof'],
      balances: { 'a/EUR': 3n, 'b/EUR/2': 900n },
    });
    expect(postings).toEqual([['b', 'dest', 500n, 'EUR/2']]);
  });

  it('reads every scale the account holds, once, and only of the asset sent', () => {
    const { reads } = run(send('[EUR/2 1]'), {
      ...FLAG,
      balances: { 'src/EUR': 1n, 'src/EURO': 5n, 'src/EUR_RED/2': 5n, 'src/USD/2': 5n },
    });
    expect(reads).toEqual(['assets src', 'src/EUR/2', 'src/EUR']);
  });

  it('another asset sharing the prefix, a colored one, or a scale not written canonically is not converted', () => {
    const error = failure(send('[EUR/2 1]'), {
      ...FLAG,
      balances: { 'src/EURO': 5n, 'src/EUR_RED/2': 5n, 'src/EUR/0': 5n, 'src/EUR/02': 5n },
    });
    expect(error.kind).toBe('MissingFunds');
  });

  it('an overdrawn scale holds nothing to convert', () => {
    const { postings } = run(send('[EUR 1]'), {
      ...FLAG,
      balances: { 'src/EUR/2': -100n, 'src/EUR/1': 20n },
    });
    expect(postings).toEqual([
      ['src', 'swap', 10n, 'EUR/1'],
      ['swap', 'src', 1n, 'EUR'],
      ['src', 'dest', 1n, 'EUR'],
    ]);
  });

  it('refuses @world as the scaled account, and the syntax without the flag', () => {
    const world = `send [EUR/2 1] ( source = @world with scaling through @swap destination = @d )`;
    expect(failure(world, FLAG)).toMatchObject({
      code: 'COMPILATION_FAILED',
      kind: 'InvalidUnboundedAddressInScalingAddress',
      line: 1,
    });
    const error = failure(send('[EUR/2 1]'), { balances: { 'src/EUR': 1n } });
    expect(error).toMatchObject({ code: 'COMPILATION_FAILED', kind: 'ExperimentalFeature' });
    expect(error.message).toContain("'experimental-asset-scaling'");
  });

  it('the pragma enables it, and the swap account may be a variable', () => {
    const script = `#![feature("experimental-asset-scaling")]
      vars { account $swap }
      send [EUR/2 100] ( source = @src with scaling through $swap destination = @dest )`;
    const { postings } = run(script, { vars: { swap: 'fx:eur' }, balances: { 'src/EUR': 1n } });
    expect(postings).toEqual([
      ['src', 'fx:eur', 1n, 'EUR'],
      ['fx:eur', 'src', 100n, 'EUR/2'],
      ['src', 'dest', 100n, 'EUR/2'],
    ]);
  });

  it('refuses a color or an overdraft on a scaled source, and a non-account swap', () => {
    expect(
      failure(
        `send [EUR/2 1] ( source = @a with scaling through @s allowing unbounded overdraft destination = @d )`,
        FLAG,
      ).kind,
    ).toBe('ParseError');
    expect(
      failure(`send [EUR/2 1] ( source = @a with scaling through "s" destination = @d )`, FLAG)
        .kind,
    ).toBe('TypeError');
  });

  it('refuses a conversion whose amount would exceed 1000 digits, and skips one that would give nothing', () => {
    const error = failure(send('[EUR/2000 1]'), { ...FLAG, balances: { 'src/EUR': 1n } });
    expect(error).toMatchObject({ code: 'COMPILATION_FAILED', kind: 'InvalidPosting' });
    expect(
      failure(send('[EUR 1]'), { ...FLAG, balances: { 'src/EUR/900000': 10n ** 50n } }).kind,
    ).toBe('MissingFunds');
  });
});

describe('findConversions', () => {
  it('counts the target scale first and converts nothing when it suffices', () => {
    expect(
      findConversions(
        10n,
        2,
        new Map([
          [2, 10n],
          [0, 5n],
        ]),
      ),
    ).toEqual({
      conversions: [],
      obtained: 0n,
    });
    expect(findConversions(0n, 2, new Map([[0, 5n]]))).toEqual({ conversions: [], obtained: 0n });
  });

  it('with no amount asked, converts every scale but the target', () => {
    expect(
      findConversions(
        null,
        1,
        new Map([
          [1, 4n],
          [0, 2n],
          [3, 250n],
        ]),
      ),
    ).toEqual({
      conversions: [
        { scale: 3, amount: 200n },
        { scale: 0, amount: 2n },
      ],
      obtained: 22n,
    });
  });
});
