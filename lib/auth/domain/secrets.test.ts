import { describe, expect, it } from 'vitest';
import { digestSecret, findMatchingSecret, generateSecret, lastDigits } from './secrets.js';

describe('client secrets', () => {
  it('generates distinct URL-safe secrets with 256 bits of randomness', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateSecret));
    expect(secrets.size).toBe(100);
    for (const s of secrets) expect(s).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from([...secrets][0]!.slice(3), 'base64url')).toHaveLength(32);
  });

  it('stores a SHA-256 digest, never the secret', () => {
    expect(digestSecret('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('finds the matching digest among several, and reports no match as -1', () => {
    const digests = ['one-secret', 'two-secret', 'three-secret'].map(digestSecret);
    expect(findMatchingSecret('two-secret', digests)).toBe(1);
    expect(findMatchingSecret('three-secret', digests)).toBe(2);
    expect(findMatchingSecret('four-secret', digests)).toBe(-1);
    expect(findMatchingSecret('', [])).toBe(-1);
    expect(findMatchingSecret('one-secret', ['not-a-digest'])).toBe(-1);
  });

  it('shows the last four characters', () => {
    expect(lastDigits('cs_abcdefWXYZ')).toBe('WXYZ');
  });
});
