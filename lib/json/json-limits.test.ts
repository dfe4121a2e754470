/** The one pass over a JSON body's text before it is parsed (lib/json/json-limits.ts). */
import { describe, expect, it } from 'vitest';
import { assertJsonText, MAX_JSON_DEPTH } from './json-limits.js';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const messageOf = (text: string): string | undefined => {
  try {
    assertJsonText(text);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('nesting depth', () => {
  it('takes the limit exactly, refuses one level more, and 100,000 levels in one pass', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(messageOf(nested(64))).toBeUndefined();
    expect(messageOf(`{"a":${nested(63)}}`)).toBeUndefined();
    expect(messageOf(nested(65))).toBe('body: JSON nested deeper than 64 levels');
    expect(messageOf(`{"a":${nested(64)}}`)).toBe('body: JSON nested deeper than 64 levels');
    expect(messageOf(nested(100_000))).toBe('body: JSON nested deeper than 64 levels');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(messageOf(JSON.stringify({ a: '['.repeat(1000) }))).toBeUndefined();
    expect(messageOf(JSON.stringify({ a: `\\"${'{'.repeat(1000)}` }))).toBeUndefined();
    expect(messageOf(`["\\"", ${nested(64)}]`)).toBe('body: JSON nested deeper than 64 levels');
  });
});

describe('surrogate escapes', () => {
  const LONE = 'body: a string holds a lone surrogate escape (\\uD800-\\uDFFF), not valid Unicode';

  it('keeps a pair, any other escape, and characters sent as UTF-8', () => {
    expect(messageOf('{"k":"a\\ud83d\\ude00b"}')).toBeUndefined();
    expect(messageOf('{"k":"\\uD83D\\uDE00"}')).toBeUndefined();
    expect(messageOf('{"k":"\\u00e9\\n\\\\ud800\\"","\\u0041":1}')).toBeUndefined();
    expect(messageOf(JSON.stringify({ k: 'é😀' }))).toBeUndefined();
  });

  it('refuses a high half alone, a low half alone, a reversed pair, in values and in keys', () => {
    expect(messageOf('{"k":"a\\ud800b"}')).toBe(LONE);
    expect(messageOf('{"k":"a\\ud800"}')).toBe(LONE);
    expect(messageOf('{"k":"\\udc00"}')).toBe(LONE);
    expect(messageOf('{"k":"\\ude00\\ud83d"}')).toBe(LONE);
    expect(messageOf('{"k":"\\ud800\\n"}')).toBe(LONE);
    expect(messageOf('{"\\udfff":"v"}')).toBe(LONE);
  });
});
