import { describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT, isEnvironmentId } from './environment-id.js';
import {
  environmentOfKey,
  inEnvironment,
  leadingKeysPattern,
  withoutEnvironment,
} from './key-scope.js';

describe('environment ids', () => {
  it('accepts lower-case letters, digits and inner hyphens up to 40 characters', () => {
    for (const id of [DEFAULT_ENVIRONMENT, 'a', 'sandbox-1', 'x'.repeat(40), '0abc']) {
      expect(isEnvironmentId(id)).toBe(true);
    }
  });

  it('refuses what could break a key, a claim or an IAM pattern', () => {
    for (const id of [
      '',
      'A',
      'a#b',
      'a*',
      'a?',
      '-a',
      'a-',
      'x'.repeat(41),
      'a b',
      'é',
      7,
      null,
    ]) {
      expect(isEnvironmentId(id)).toBe(false);
    }
  });
});

describe('environment key scope', () => {
  it('prefixes a partition key and reads the environment back', () => {
    const key = inEnvironment('sandbox-1', 'L#main#TX');
    expect(key).toBe('E#sandbox-1#L#main#TX');
    expect(environmentOfKey(key)).toBe('sandbox-1');
    expect(withoutEnvironment(key)).toBe('L#main#TX');
  });

  it('refuses an id that is not an environment id', () => {
    expect(() => inEnvironment('a#b', 'X')).toThrow('not an environment id');
  });

  it('finds no environment in shared or malformed keys', () => {
    expect(environmentOfKey('JWKS')).toBeUndefined();
    expect(environmentOfKey('E#')).toBeUndefined();
    expect(environmentOfKey('E#UPPER#X')).toBeUndefined();
    expect(withoutEnvironment('JWKS')).toBe('JWKS');
  });

  it('gives the IAM pattern of one environment, which no other environment matches', () => {
    expect(leadingKeysPattern('prod')).toBe('E#prod#*');
    // `E#prod#*` cannot match `E#prod-2#...`: the `#` after the id ends it.
    expect(inEnvironment('prod-2', 'X').startsWith('E#prod#')).toBe(false);
  });
});
