import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors/index.js';
import { addressFilter, parseAggregateFilter } from './account-filter.js';
import { DEFAULT_FEATURES, type FeatureSet } from './features.js';

const NO_SEGMENTS: FeatureSet = { ...DEFAULT_FEATURES, INDEX_ADDRESS_SEGMENTS: 'OFF' };
// Aggregated balances' filter: an address, a prefix or a segment pattern (lists take the query language).
const parse = (raw: string | undefined, features = DEFAULT_FEATURES) =>
  parseAggregateFilter(raw, features);

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).message;
  }
  throw new Error('expected a ValidationError');
}

describe('parseAggregateFilter', () => {
  it('reads no filter from an absent, blank or empty query', () => {
    expect(parse(undefined)).toBeUndefined();
    expect(parse('')).toBeUndefined();
    expect(parse('  ')).toBeUndefined();
    expect(parse('{}')).toBeUndefined();
  });

  it('reads an exact address and a prefix ending with ":"', () => {
    expect(parse('{"$match": {"address": "users:1"}}')).toEqual({
      address: 'users:1',
      prefix: false,
    });
    expect(parse('{"$match":{"address":"users"}}')).toEqual({ address: 'users', prefix: false });
    expect(parse('{"$match": {"address": "users:"}}')).toEqual({ address: 'users:', prefix: true });
    expect(parse('{"$match": {"address": "a_b-c:d:"}}')).toEqual({
      address: 'a_b-c:d:',
      prefix: true,
    });
  });

  it('refuses a prefix without INDEX_ADDRESS_SEGMENTS, but not an exact address', () => {
    expect(refusal(() => parse('{"$match": {"address": "users:"}}', NO_SEGMENTS))).toBe(
      'missing feature "INDEX_ADDRESS_SEGMENTS"',
    );
    expect(parse('{"$match": {"address": "users:1"}}', NO_SEGMENTS)).toEqual({
      address: 'users:1',
      prefix: false,
    });
  });

  it('refuses malformed JSON and what is not an object', () => {
    expect(refusal(() => parse('{"$match": '))).toBe('query: must be valid JSON');
    expect(refusal(() => parse('users:'))).toBe('query: must be valid JSON');
    for (const raw of ['[]', 'null', '"users:"', '12']) {
      expect(
        refusal(() => parse(raw)),
        raw,
      ).toBe('query: must be a JSON object such as {"$match": {"address": "users:"}}');
    }
    expect(refusal(() => parse(`{"$match": {"address": "${'a'.repeat(8200)}"}}`))).toBe(
      'query: must be at most 8192 characters',
    );
  });

  it('refuses other operators, known or not, and several at once', () => {
    for (const op of ['$or', '$and', '$not', '$lt', '$lte', '$gt', '$gte', '$exists', '$in']) {
      expect(
        refusal(() => parse(`{"${op}": []}`)),
        op,
      ).toBe(`query: operator "${op}" is not supported on accounts (only $match on address)`);
    }
    expect(refusal(() => parse('{"$regex": {"address": "u"}}'))).toBe(
      'query: unknown operator "$regex"',
    );
    expect(refusal(() => parse('{"address": "users:1"}'))).toBe(
      'query: unknown operator "address"',
    );
    expect(refusal(() => parse('{"$match": {"address": "a"}, "$or": []}'))).toBe(
      'query: must hold one operator, found 2',
    );
  });

  it('refuses filters on fields without an index, unknown fields and several fields', () => {
    for (const field of [
      'metadata[kind]',
      'balance[USD]',
      'balance',
      'metadata',
      'first_usage',
      'insertion_date',
      'updated_at',
    ]) {
      expect(
        refusal(() => parse(JSON.stringify({ $match: { [field]: 'x' } }))),
        field,
      ).toBe(`query.$match: filtering accounts on "${field}" is not supported (only address)`);
    }
    expect(refusal(() => parse('{"$match": {"colour": "red"}}'))).toBe(
      'query.$match: unknown field "colour"',
    );
    expect(refusal(() => parse('{"$match": {"address": "a", "metadata[k]": "v"}}'))).toBe(
      'query.$match: must name exactly one field, found 2',
    );
    expect(refusal(() => parse('{"$match": {}}'))).toBe(
      'query.$match: must name exactly one field, found 0',
    );
    expect(refusal(() => parse('{"$match": ["address"]}'))).toBe(
      'query.$match: must be an object such as {"address": "users:"}',
    );
  });

  it('refuses wrong types and malformed addresses', () => {
    for (const value of ['1', 'true', 'null', '["users:"]', '{"$prefix": "u"}']) {
      expect(
        refusal(() => parse(`{"$match": {"address": ${value}}}`)),
        value,
      ).toBe('query.$match.address: must be a string');
    }
    expect(refusal(() => parse(JSON.stringify({ $match: { address: ':' } })))).toBe(
      'query.$match.address: a segment pattern needs a fixed segment among its first 4',
    );
    for (const address of ['', 'a b', 'users:*', 'é']) {
      expect(
        refusal(() => parse(JSON.stringify({ $match: { address } }))),
        address,
      ).toBe(
        'query.$match.address: must be an account address, or an address prefix ending with ":"',
      );
    }
    expect(
      refusal(() => parse(JSON.stringify({ $match: { address: `${'a'.repeat(257)}` } }))),
    ).toBe('query.$match.address: must be at most 256 characters');
  });
});

describe('segment patterns (aggregates)', () => {
  const list = (address: string, features = DEFAULT_FEATURES) =>
    parseAggregateFilter(JSON.stringify({ $match: { address } }), features);
  it('reads empty segments as wildcards, with the exact segment count', () => {
    expect(list(':1')).toEqual({ segments: [null, '1'] });
    expect(list('users::eur')).toEqual({ segments: ['users', null, 'eur'] });
    expect(list('users::')).toEqual({ segments: ['users', null, null] });
    expect(
      parseAggregateFilter(JSON.stringify({ $match: { address: 'a::b' } }), DEFAULT_FEATURES),
    ).toEqual({ segments: ['a', null, 'b'] });
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
