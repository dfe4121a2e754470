/** Fields sent as `null` are absent (lib/http/json-body.ts): what the reference's Go SDK sends for unset fields. */
import { describe, expect, it } from 'vitest';
import { withoutNullFields } from './json-body.js';

describe('withoutNullFields', () => {
  it('drops null fields at every depth, keeps array elements and other values as they are', () => {
    expect(
      withoutNullFields({
        postings: [{ source: 'world', amount: 10n, metadata: null }, null],
        metadata: null,
        reference: 'r',
        n: 0,
        f: false,
        s: '',
      }),
    ).toEqual({
      postings: [{ source: 'world', amount: 10n }, null],
      reference: 'r',
      n: 0,
      f: false,
      s: '',
    });
    expect(withoutNullFields(null)).toBeNull();
    expect(withoutNullFields([null, 1])).toEqual([null, 1]);
  });

  it('keeps a "__proto__" key a plain key', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":null}');
    const out = withoutNullFields(parsed) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
