import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('experimental features (off unless the pragma or the caller enables them)', () => {
  it('oneof source: the first branch that can send everything, else the last', () => {
    const script = `#![feature("experimental-oneof")]
      send [COIN 10] ( source = oneof { @a @b @world } destination = @c )`;
    expect(run(script, { balances: { 'a/COIN': 5n, 'b/COIN': 10n } }).postings).toEqual([
      ['b', 'c', 10n, 'COIN'],
    ]);
    expect(run(script, { balances: { 'a/COIN': 5n, 'b/COIN': 5n } }).postings).toEqual([
      ['world', 'c', 10n, 'COIN'],
    ]);
  });

  it('oneof destination: the first clause whose max covers the amount', () => {
    const script = `send [COIN 10] ( source = @world destination = oneof { max [COIN 5] to @a max [COIN 10] to @b remaining to @c } )`;
    expect(run(script, { featureFlags: ['experimental-oneof'] }).postings).toEqual([
      ['world', 'b', 10n, 'COIN'],
    ]);
  });

  it('refuses oneof without the flag, naming the flag', () => {
    const error = failure('send [COIN 1] ( source = oneof { @world } destination = @c )');
    expect(error).toMatchObject({ code: 'COMPILATION_FAILED', kind: 'ExperimentalFeature' });
    expect(error.message).toContain("'experimental-oneof'");
  });

  it('overdraft() gives how far below zero an account is', () => {
    const script = `#![feature("experimental-overdraft-function")]
      vars { monetary $debt = overdraft(@a, COIN) }
      send $debt ( source = @world destination = @a )`;
    expect(run(script, { balances: { 'a/COIN': -42n } }).postings).toEqual([
      ['world', 'a', 42n, 'COIN'],
    ]);
    expect(failure('vars { monetary $d = overdraft(@a, COIN) }').kind).toBe('ExperimentalFeature');
  });

  it('account interpolation builds an address from variables', () => {
    const script = `#![feature("experimental-account-interpolation")]
      vars { string $id number $n }
      send [COIN 1] ( source = @world destination = @users:$id:wallets:$n )`;
    expect(run(script, { vars: { id: 'u42', n: '7' } }).postings).toEqual([
      ['world', 'users:u42:wallets:7', 1n, 'COIN'],
    ]);
  });

  it('mid-script function calls', () => {
    const script = `#![feature("experimental-mid-script-function-call")]
      send balance(@a, COIN) ( source = @a destination = @b )`;
    expect(run(script, { balances: { 'a/COIN': 9n } }).postings).toEqual([['a', 'b', 9n, 'COIN']]);
    expect(failure('send balance(@a, COIN) ( source = @a destination = @b )').kind).toBe(
      'ExperimentalFeature',
    );
  });

  it('a mid-script balance() sees what earlier statements moved, without reading again', () => {
    const script = `#![feature("experimental-mid-script-function-call")]
      send [USD/2 3] ( source = @acc destination = @world )
      send balance(@acc, USD/2) ( source = @world destination = @dest )`;
    const { postings, reads } = run(script, { balances: { 'acc/USD/2': 10n } });
    expect(postings).toEqual([
      ['acc', 'world', 3n, 'USD/2'],
      ['world', 'dest', 7n, 'USD/2'],
    ]);
    expect(reads).toEqual(['acc/USD/2']);
  });

  it('get_asset() and get_amount()', () => {
    const script = `#![feature("experimental-get-asset-function", "experimental-get-amount-function")]
      vars { monetary $m asset $a = get_asset($m) number $n = get_amount($m) }
      set_tx_meta("a", $a) set_tx_meta("n", $n)`;
    expect(run(script, { vars: { m: 'EUR/2 15' } }).txMetadata).toEqual({ a: 'EUR/2', n: '15' });
  });

  it('asset colors: a colored source spends and posts the colored asset', () => {
    const script = `#![feature("experimental-asset-colors")]
      send [COIN 10] ( source = { @a \\ "RED" @a } destination = @b )`;
    expect(run(script, { balances: { 'a/COIN_RED': 4n, 'a/COIN': 100n } }).postings).toEqual([
      ['a', 'b', 4n, 'COIN_RED'],
      ['a', 'b', 6n, 'COIN'],
    ]);
  });

  it('asset colors: the color goes before the precision', () => {
    const script = `#![feature("experimental-asset-colors")]
      send [USD/4 10] ( source = @a \\ "COL" allowing unbounded overdraft destination = @b )`;
    expect(run(script).postings).toEqual([['a', 'b', 10n, 'USD_COL/4']]);
  });
});
