import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors/index.js';
import { addressFilter, segmentFilter } from './account-filter.js';
import { DEFAULT_FEATURES, type FeatureSet } from './features.js';

const NO_SEGMENTS: FeatureSet = { ...DEFAULT_FEATURES, INDEX_ADDRESS_SEGMENTS: 'OFF' };

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error('expected a ValidationError');
}

describe('segment patterns', () => {
  const list = (address: string, features = DEFAULT_FEATURES) =>
    segmentFilter(address, features) ?? addressFilter(address, features, 'query.$match.address');
  it('reads empty segments as wildcards, with the exact segment count', () => {
    expect(list(':1')).toEqual({ segments: [null, '1'] });
    expect(list('users::eur')).toEqual({ segments: ['users', null, 'eur'] });
    expect(list('users::')).toEqual({ segments: ['users', null, null] });
    expect(list('a::b')).toEqual({ segments: ['a', null, 'b'] });
    // Not patterns: an exact address and a prefix.
    expect(list('users:1')).toEqual({ address: 'users:1', prefix: false });
    expect(list('users:')).toEqual({ address: 'users:', prefix: true });
  });

  it('needs INDEX_ADDRESS_SEGMENTS and a fixed segment among the indexed ones', () => {
    expect(refusal(() => list(':1', NO_SEGMENTS))).toBe('missing feature "INDEX_ADDRESS_SEGMENTS"');
    expect(refusal(() => list('::'))).toBe(
      'query.$match.address: a segment pattern needs a fixed segment among its first 4',
    );
    expect(refusal(() => list('::::x'))).toBe(
      'query.$match.address: a segment pattern needs a fixed segment among its first 4',
    );
    expect(list(':::x:y')).toEqual({ segments: [null, null, null, 'x', 'y'] });
    expect(refusal(() => list('a::b c'))).toBe(
      'query.$match.address: must be an account address, or an address prefix ending with ":"',
    );
  });
});

describe('addressFilter', () => {
  it('checks an address carried in a cursor the same way', () => {
    expect(addressFilter('users:', DEFAULT_FEATURES, 'cursor')).toEqual({
      address: 'users:',
      prefix: true,
    });
    expect(refusal(() => addressFilter('a b', DEFAULT_FEATURES, 'cursor'))).toBe(
      'cursor: must be an account address, or an address prefix ending with ":"',
    );
    expect(refusal(() => addressFilter('users:', NO_SEGMENTS, 'cursor'))).toBe(
      'missing feature "INDEX_ADDRESS_SEGMENTS"',
    );
  });
});
