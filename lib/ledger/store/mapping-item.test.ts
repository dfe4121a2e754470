import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import { limitsView } from '../domain/limits.js';
import { limitsBodySchema } from '../routes/limits-requests.js';
import { parseStoredLimits } from './mapping-item.js';

describe('the stored limits, read back without the request schema', () => {
  const body = {
    rules: [
      { account: 'users:*', asset: 'USD/2', min: -500, forceAllowed: false },
      { account: 'fees', max: '90000000000000000000000', debitsMustNotExceedCredits: true },
      { account: '*', creditsMustNotExceedDebits: true, forceAllowed: true },
    ],
  };

  it('are the rules the request gave, as stored and parsed back', () => {
    const { rules } = v.parse(limitsBodySchema, body);
    const stored = (parseJson(stringifyJson(limitsView(rules))) as { rules: unknown }).rules;
    expect(parseStoredLimits(stored)).toEqual([
      { account: 'users:*', asset: 'USD/2', min: -500n, forceAllowed: false },
      { account: 'fees', max: 90000000000000000000000n, debitsMustNotExceedCredits: true },
      { account: '*', creditsMustNotExceedDebits: true, forceAllowed: true },
    ]);
    expect(parseStoredLimits(stored)).toEqual(rules);
  });

  it('refuse a stored rule that means nothing, with the domain’s words', () => {
    expect(() => parseStoredLimits([{ account: 'a', min: 5n, max: 1n }])).toThrow(
      'stored limits rule 0: min must not be above max',
    );
    expect(() =>
      parseStoredLimits([{ account: 'a' }, { account: 'b', forceAllowed: true }]),
    ).toThrow(
      'stored limits rule 0: must set min, max, debitsMustNotExceedCredits or creditsMustNotExceedDebits',
    );
    expect(() => parseStoredLimits({ rules: [] })).toThrow('stored limits are not a list');
  });

  it('the request schema refuses the same rules with the same words', () => {
    const issue = (rules: unknown[]) => {
      const parsed = v.safeParse(limitsBodySchema, { rules });
      return parsed.success ? 'ok' : parsed.issues[0].message;
    };
    expect(issue([{ account: 'a', min: 5, max: 1 }])).toBe('min must not be above max');
    expect(issue([{ account: 'a', forceAllowed: true }])).toBe(
      'must set min, max, debitsMustNotExceedCredits or creditsMustNotExceedDebits',
    );
  });
});
