import { describe, expect, it } from 'vitest';
import { eventKey, outboxRow, parseEventKey } from './outbox.js';

describe('outbox rows in environments', () => {
  it('keys an event row in its environment and reads the key back', () => {
    expect(eventKey('sandbox-1', 'abc')).toEqual({ pk: 'E#sandbox-1#EVENT#abc', sk: 'EVENT' });
    expect(parseEventKey('E#sandbox-1#EVENT#abc', 'EVENT')).toEqual({
      environment: 'sandbox-1',
      id: 'abc',
    });
    const row = outboxRow({
      type: 'payments.saved_payment',
      seed: 's',
      idempotencyKey: 'k',
      date: '2026-11-22T10:00:00Z',
      payload: {},
      environment: 'prod',
      nowMs: 0,
      attributes: {},
    });
    expect(String(row.pk)).toMatch(/^E#prod#EVENT#[0-9a-f]{32}$/);
    expect(parseEventKey(String(row.pk), String(row.sk))?.environment).toBe('prod');
  });

  it('tells an event row that names no environment (malformed) from a key that is no event row', () => {
    expect(parseEventKey('EVENT#abc', 'EVENT')).toEqual({ id: 'abc' });
    expect(parseEventKey('E#Bad_Env#EVENT#abc', 'EVENT')).toEqual({ id: 'abc' });
    expect(parseEventKey('E#prod#EVENT#abc', 'OTHER')).toBeUndefined();
    expect(parseEventKey('E#prod#PAYMENT#abc', 'EVENT')).toBeUndefined();
    expect(parseEventKey('LEDGER#x', 'EVENT')).toBeUndefined();
  });

  it('refuses to key an event in something that is not an environment id', () => {
    expect(() => eventKey('a#b', 'x')).toThrow('not an environment id');
  });
});
