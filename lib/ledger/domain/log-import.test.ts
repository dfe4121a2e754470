import { describe, expect, it } from 'vitest';
import { ImportError, ValidationError } from '../../errors/index.js';
import { ImportChain, parseLogLine, sameLog } from './log-import.js';
import type { LogEntry } from './logs.js';
import { readQueryOperator } from './query-json.js';

const revert = (revertedTransaction: Record<string, unknown>): LogEntry => ({
  id: 3,
  type: 'REVERTED_TRANSACTION',
  data: { revertedTransaction, transaction: { id: 4, metadata: { k: 'v' } } },
  date: '2026-03-01T10:00:00Z',
  idempotencyKey: '',
  hash: '',
});

describe('sameLog', () => {
  const replayed = revert({ id: 2, metadata: { a: 'b' }, reverted: true });

  it('compares a revert naming the reverted transaction by id alone on that id', () => {
    expect(sameLog(replayed, revert({ id: 2 }))).toBe(true);
    expect(sameLog(replayed, revert({ id: 1 }))).toBe(false);
    // The rest of the entry is still compared.
    const other = revert({ id: 2 });
    other.data.transaction = { id: 4, metadata: { k: 'w' } };
    expect(sameLog(replayed, other)).toBe(false);
  });

  it('compares every field of a revert that states more than the id', () => {
    expect(sameLog(replayed, revert({ id: 2, metadata: { a: 'b' }, reverted: true }))).toBe(true);
    expect(sameLog(replayed, revert({ id: 2, metadata: {} }))).toBe(false);
  });
});

describe('ImportChain', () => {
  const entry = (id: number): LogEntry => ({ ...revert({ id: 1 }), id });

  it('starts at 1, or right after the last log of the ledger it continues', () => {
    expect(() => new ImportChain().check(entry(1))).not.toThrow();
    const continued = new ImportChain({ id: 7, hash: '' });
    expect(() => continued.check(entry(7))).toThrow(
      "log 7: expected log 8 here (ids start at the ledger's last + 1 and follow without gaps)",
    );
    expect(() => continued.check(entry(8))).not.toThrow();
  });
});

describe('the JSON limit on what is not a request body', () => {
  it('an import line nested too deep is named by its line, not taken for something that is not JSON', () => {
    expect(() => parseLogLine('['.repeat(100_000), 3)).toThrow(
      new ImportError('line 3: JSON nested deeper than 64 levels'),
    );
    expect(() => parseLogLine('{"data":{"x":"\\ud800"}}', 4)).toThrow(
      new ImportError(
        'line 4: a string holds a lone surrogate escape (\\uD800-\\uDFFF), not valid Unicode',
      ),
    );
  });

  it('a list query nested too deep is a 400 naming the query', () => {
    expect(() => readQueryOperator(`{"$and":${'['.repeat(8000)}`, '{"$match":{}}')).toThrow(
      new ValidationError('query: JSON nested deeper than 64 levels'),
    );
  });
});
