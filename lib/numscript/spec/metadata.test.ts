import { describe, expect, it } from 'vitest';
import { mergeTxMetadata, NumscriptError } from '../index.js';
import { run } from './support.js';

describe('metadata', () => {
  it('renders set_tx_meta values as the reference does', () => {
    const script = `
      set_tx_meta("num", 42)
      set_tx_meta("str", "abc")
      set_tx_meta("asset", COIN)
      set_tx_meta("account", @users:1)
      set_tx_meta("portion", 12%)
      set_tx_meta("whole", 100%)
      set_tx_meta("money", [USD/2 1500])`;
    expect(run(script).txMetadata).toEqual({
      num: '42',
      str: 'abc',
      asset: 'COIN',
      account: 'users:1',
      portion: '3/25',
      whole: '1/1',
      money: 'USD/2 1500',
    });
  });

  it('keeps the last value set for a key', () => {
    expect(run('set_tx_meta("k", "a") set_tx_meta("k", "b")').txMetadata).toEqual({ k: 'b' });
  });

  it('sets account metadata by account, rendered the same way', () => {
    const script = `
      set_account_meta(@alice, "tier", "gold")
      set_account_meta(@alice, "limit", [USD/2 100])
      set_account_meta(@bob, "share", 1/3)`;
    expect(run(script).accountMetadata).toEqual({
      alice: { tier: 'gold', limit: 'USD/2 100' },
      bob: { share: '1/3' },
    });
  });

  it('refuses a key set both by the request and by the script (METADATA_OVERRIDE), merges otherwise', () => {
    expect(mergeTxMetadata({ a: '1' }, { b: '2' })).toEqual({ a: '1', b: '2' });
    expect(() => mergeTxMetadata({ a: '1' }, { a: '1' })).toThrow(NumscriptError);
    try {
      mergeTxMetadata({ a: '1' }, { a: '2' });
    } catch (error) {
      expect((error as NumscriptError).code).toBe('METADATA_OVERRIDE');
    }
  });
});
