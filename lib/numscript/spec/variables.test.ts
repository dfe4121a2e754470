import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('variables', () => {
  it('reads every type from vars', () => {
    const script = `vars {
      monetary $amount
      account $from
      account $to
      asset $asset
      number $n
      string $label
      portion $share
    }
    send $amount ( source = $from allowing unbounded overdraft destination = { $share to $to remaining kept } )
    set_tx_meta("asset", $asset)
    set_tx_meta("n", $n)
    set_tx_meta("label", $label)`;
    const result = run(script, {
      vars: {
        amount: 'EUR/2 100',
        from: 'users:1',
        to: 'users:2',
        asset: 'EUR/2',
        n: '-42',
        label: 'hi there',
        share: '1/4',
      },
    });
    expect(result.postings).toEqual([['users:1', 'users:2', 25n, 'EUR/2']]);
    expect(result.txMetadata).toEqual({ asset: 'EUR/2', n: '-42', label: 'hi there' });
  });

  it('parses portions as percentages (with decimals) or fractions', () => {
    const script =
      'vars { portion $p } send [COIN 1000] ( source = @world destination = { $p to @a remaining to @b } )';
    expect(run(script, { vars: { p: '12.5%' } }).postings[0]).toEqual(['world', 'a', 125n, 'COIN']);
    expect(run(script, { vars: { p: '3 / 8' } }).postings[0]).toEqual(['world', 'a', 375n, 'COIN']);
    expect(run(script, { vars: { p: '100%' } }).postings).toEqual([['world', 'a', 1000n, 'COIN']]);
  });

  it('takes amounts beyond 64 bits', () => {
    const script = 'vars { monetary $m } send $m ( source = @world destination = @a )';
    expect(run(script, { vars: { m: 'COIN 123456789012345678901234567890' } }).postings).toEqual([
      ['world', 'a', 123456789012345678901234567890n, 'COIN'],
    ]);
  });

  it('reads a variable from account metadata, typed by its declaration', () => {
    const script = `vars {
      account $sale
      account $seller = meta($sale, "seller")
      portion $commission = meta($seller, "commission")
    }
    send [EUR/2 100] ( source = $sale destination = { remaining to $seller $commission to @platform } )`;
    const { postings } = run(script, {
      vars: { sale: 'sales:042' },
      balances: { 'sales:042/EUR/2': 2500n },
      meta: { 'sales:042': { seller: 'users:053' }, 'users:053': { commission: '12.5%' } },
    });
    expect(postings).toEqual([
      ['sales:042', 'users:053', 88n, 'EUR/2'],
      ['sales:042', 'platform', 12n, 'EUR/2'],
    ]);
  });

  it('reads a variable from a balance', () => {
    const script = `vars { monetary $all = balance(@a, COIN) }
      send $all ( source = @a destination = @b )`;
    expect(run(script, { balances: { 'a/COIN': 77n } }).postings).toEqual([
      ['a', 'b', 77n, 'COIN'],
    ]);
  });

  it('refuses a negative balance() and missing metadata', () => {
    expect(
      failure('vars { monetary $b = balance(@a, COIN) }', { balances: { 'a/COIN': -1n } }).kind,
    ).toBe('NegativeBalance');
    const missing = failure('vars { account $s = meta(@a, "seller") }');
    expect(missing).toMatchObject({
      code: 'COMPILATION_FAILED',
      kind: 'MetadataNotFound',
      line: 1,
      column: 21,
    });
  });

  it('names a missing variable', () => {
    const error = failure(
      'vars {\n  monetary $amount\n}\nsend $amount ( source = @world destination = @a )',
    );
    expect(error).toMatchObject({
      code: 'COMPILATION_FAILED',
      kind: 'MissingVariable',
      line: 2,
      column: 3,
    });
    expect(error.message).toContain('amount');
    // Object.prototype names are not variables given.
    expect(failure('vars { string $constructor }').kind).toBe('MissingVariable');
    expect(failure('vars { number $n }', { vars: { n: 5 as unknown as string } }).kind).toBe(
      'InvalidVariableValue',
    );
  });

  it.each([
    ['monetary', 'COIN'],
    ['monetary', 'COIN ten'],
    ['account', '@alice'],
    ['account', 'a b'],
    ['number', '1.5'],
    ['asset', 'coin'],
    ['portion', '101%'],
    ['portion', '1/0'],
    ['portion', 'half'],
  ])('refuses an ill-typed %s value %j, naming the variable', (type, value) => {
    const error = failure(`vars { ${type} $v }`, { vars: { v: value } });
    expect(error.code).toBe('COMPILATION_FAILED');
    expect(error.message).toContain(`$v: '${value}'`);
  });

  it('refuses an expression origin that is not a function call unless mid-script calls are enabled', () => {
    expect(failure('vars { number $n = 1 + 2 }').kind).toBe('ExperimentalFeature');
    const flagged = run('vars { number $n = 1 + 2 } set_tx_meta("n", $n)', {
      featureFlags: ['experimental-mid-script-function-call'],
    });
    expect(flagged.txMetadata).toEqual({ n: '3' });
  });
});
