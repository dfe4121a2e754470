import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { escapeStoredKey, unescapeStoredKey } from '../dynamo/proto-keys.js';
import { ValidationError } from '../errors/index.js';
import { metadataMap } from './common.js';
import { keyedRecord } from './record.js';
import { validate } from './validate.js';

const parsed = (json: string) => JSON.parse(json) as unknown;
const refusal = (schema: v.GenericSchema, input: unknown) => {
  try {
    validate(schema, input, 'body');
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('metadataMap (every caller map key is data)', () => {
  it('keeps __proto__, constructor and prototype as own keys of an ordinary object', () => {
    const out = validate(
      metadataMap,
      parsed('{"__proto__":"p","constructor":"c","prototype":"t","a":"b"}'),
      'body',
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.entries(out)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['prototype', 't'],
      ['a', 'b'],
    ]);
    expect(JSON.stringify(out)).toBe('{"__proto__":"p","constructor":"c","prototype":"t","a":"b"}');
    // valibot's own record drops these keys without an issue: the reason keyedRecord exists.
    expect(
      Object.keys(
        v.parse(v.record(v.string(), v.string()), parsed('{"__proto__":"p","constructor":"c"}')),
      ),
    ).toEqual([]);
  });

  it('refuses a non-string value under any key, these included, naming it', () => {
    for (const key of ['__proto__', 'constructor', 'prototype', 'plain']) {
      for (const value of ['{"x":"y"}', '1', 'true', 'null', '["a"]']) {
        expect(refusal(metadataMap, parsed(`{"${key}":${value}}`))).toBe(
          `body.${key}: metadata values must be strings`,
        );
      }
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses arrays, null and scalars as the map itself', () => {
    for (const input of [[], ['a'], null, 'x', 1])
      expect(refusal(metadataMap, input)).toBe('body: must be an object of string values');
  });

  it('counts these keys toward the 64-key bound', () => {
    const entries = [['__proto__', 'p'], ...Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v'])];
    expect(refusal(metadataMap, Object.fromEntries(entries))).toBe(
      'body: must have at most 64 keys',
    );
  });

  it('names an over-long key by its first 64 characters, never the whole key', () => {
    const key = 'k'.repeat(100_000);
    const message = refusal(metadataMap, { [key]: 'v' });
    expect(message).toBe(`body.${'k'.repeat(64)}…: metadata keys must be at most 256 characters`);
  });
});

describe('keyedRecord nested (account addresses to metadata)', () => {
  const schema = keyedRecord(
    v.pipe(v.string(), v.regex(/^[a-z_]+$/, 'must be an address')),
    metadataMap,
    'must map addresses to metadata',
  );

  it('keeps __proto__ at both levels and reports inner issues with the full path', () => {
    const out = validate(schema, parsed('{"__proto__":{"__proto__":"x"}}'), 'body');
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.entries(Object.getOwnPropertyDescriptor(out, '__proto__')!.value)).toEqual([
      ['__proto__', 'x'],
    ]);
    expect(refusal(schema, parsed('{"__proto__":{"constructor":2}}'))).toBe(
      'body.__proto__.constructor: metadata values must be strings',
    );
    expect(refusal(schema, parsed('{"__proto__":"x"}'))).toBe(
      'body.__proto__: must be an object of string values',
    );
    expect(refusal(schema, parsed('{"Bad-Key":{}}'))).toBe('body.Bad-Key: must be an address');
  });
});

describe('stored key escaping (lib/dynamo/proto-keys)', () => {
  it('is a bijection on __proto__ / constructor with any number of leading NULs, and the identity elsewhere', () => {
    const keys = [
      '__proto__',
      '\0__proto__',
      '\0\0__proto__',
      'constructor',
      '\0constructor',
      'prototype',
      'a',
      '\0a',
      '',
      '__proto__x',
    ];
    const stored = keys.map(escapeStoredKey);
    expect(stored).toEqual([
      '\0__proto__',
      '\0\0__proto__',
      '\0\0\0__proto__',
      '\0constructor',
      '\0\0constructor',
      'prototype',
      'a',
      '\0a',
      '',
      '__proto__x',
    ]);
    expect(new Set(stored).size).toBe(keys.length);
    expect(stored.map(unescapeStoredKey)).toEqual(keys);
  });
});
