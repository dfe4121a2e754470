import { describe, expect, it } from 'vitest';
import { failure, run } from './support.js';

describe('save', () => {
  it('shields part of a balance from the following sends', () => {
    const script = `vars { monetary $keep }
      save $keep from @alice
      send [USD 30] ( source = { @alice @world } destination = @bob )`;
    expect(
      run(script, { vars: { keep: 'USD 10' }, balances: { 'alice/USD': 20n } }).postings,
    ).toEqual([
      ['alice', 'bob', 10n, 'USD'],
      ['world', 'bob', 20n, 'USD'],
    ]);
  });

  it('shields the whole balance with [ASSET *]', () => {
    const script = `save [USD *] from @alice
      send [USD 5] ( source = { @alice @world } destination = @bob )`;
    expect(run(script, { balances: { 'alice/USD': 20n } }).postings).toEqual([
      ['world', 'bob', 5n, 'USD'],
    ]);
  });

  it('saving more than the balance leaves zero (an overdrawn balance is raised to zero too)', () => {
    const script = `save [USD 5] from @alice
      send [USD 10] ( source = @alice allowing overdraft up to [USD 10] destination = @bob )`;
    // -3 - 5 would be -8; the reference floors it at 0, so the full 10 of overdraft is available.
    expect(run(script, { balances: { 'alice/USD': -3n } }).postings).toEqual([
      ['alice', 'bob', 10n, 'USD'],
    ]);
  });

  it('refuses a negative save', () => {
    expect(failure('save [USD -1] from @alice').kind).toBe('NegativeAmount');
  });
});
