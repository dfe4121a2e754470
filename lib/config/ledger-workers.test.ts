import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import { ledgerWorkersFromVariables } from './env.js';

describe('LEDGER_WORKERS', () => {
  it('is unset (the embedded ledger) when unset or empty, and takes an integer from 1 to 64', () => {
    expect([
      ledgerWorkersFromVariables({}),
      ledgerWorkersFromVariables({ LEDGER_WORKERS: '' }),
    ]).toEqual([undefined, undefined]);
    expect(
      ['1', '3', '64'].map((LEDGER_WORKERS) => ledgerWorkersFromVariables({ LEDGER_WORKERS })),
    ).toEqual([1, 3, 64]);
  });

  it('refuses anything else, naming the variable and the value', () => {
    for (const bad of ['0', '65', '100', '-1', '1.5', ' 2', '2x', 'two']) {
      expect(() => ledgerWorkersFromVariables({ LEDGER_WORKERS: bad })).toThrow(
        new ConfigurationError(`LEDGER_WORKERS must be an integer from 1 to 64 (got "${bad}")`),
      );
    }
  });
});
