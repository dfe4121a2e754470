import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createPendingSchema, postPendingSchema } from '../routes/pending-schemas.js';
import { createTransactionSchema } from '../routes/write-requests.js';
import { replayedHold, replayedPost, replayedTransaction } from './replayed-writes.js';

/** The first issue of a parse as the import names it (`<path>: <message>`), or 'ok'. */
function firstIssue(schema: v.GenericSchema, value: unknown): string {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return 'ok';
  const issue = parsed.issues[0];
  return `${issue.path?.map((p) => String(p.key)).join('.') ?? ''}: ${issue.message}`;
}

const posting = { source: 'world', destination: 'users:1', amount: 100n, asset: 'USD/2' };
const transaction = {
  postings: [posting],
  metadata: { k: 'v' },
  timestamp: '2026-11-29T07:00:00.000Z',
  reference: 'ref-1',
  accountMetadata: { 'users:1': { tier: 'gold' } },
};
const hold = { postings: [posting], metadata: {}, expiresAt: '2026-12-01T00:00:00Z', force: true };
const post = { amounts: [40n], final: false, metadata: { k: 'v' } };

describe('the log import refuses a replayed write as its request would have been refused', () => {
  const transactions: Array<[string, Record<string, unknown>, string]> = [
    ['a valid one', {}, 'ok'],
    [
      'a bad address',
      { postings: [{ ...posting, source: 'a b' }] },
      'postings.0.source: must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
    ],
    [
      'a long address',
      { postings: [{ ...posting, destination: 'a'.repeat(257) }] },
      'postings.0.destination: must be at most 256 characters',
    ],
    [
      'a bad asset',
      { postings: [{ ...posting, asset: 'usd' }] },
      'postings.0.asset: must be an asset such as USD, USD/2 or EUR_COL/12',
    ],
    [
      'too many postings',
      { postings: Array(101).fill(posting) },
      'postings: must have at most 100 postings',
    ],
    [
      'an empty metadata key',
      { metadata: { '': 'x' } },
      'metadata.: metadata keys must not be empty',
    ],
    ['an empty reference', { reference: '' }, 'reference: must not be empty'],
    [
      'a long reference',
      { reference: 'r'.repeat(257) },
      'reference: must be at most 256 characters',
    ],
    [
      'account metadata of a bad address',
      { accountMetadata: { 'a b': {} } },
      'accountMetadata.a b: must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
    ],
  ];
  it.each(transactions)('a transaction with %s', (_, change, expected) => {
    const value = { ...transaction, ...change };
    expect(firstIssue(replayedTransaction, value)).toBe(expected);
    expect(firstIssue(createTransactionSchema, value)).toBe(expected);
  });

  const holds: Array<[string, Record<string, unknown>, string]> = [
    ['a valid one', {}, 'ok'],
    ['no posting', { postings: [] }, 'postings: must have at least one posting'],
    [
      'too many postings',
      { postings: Array(101).fill(posting) },
      'postings: must have at most 100 postings',
    ],
    [
      'a bad address',
      { postings: [{ ...posting, destination: 'x:' }] },
      'postings.0.destination: must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")',
    ],
  ];
  it.each(holds)('a hold with %s', (_, change, expected) => {
    const value = { ...hold, ...change };
    expect(firstIssue(replayedHold, value)).toBe(expected);
    expect(firstIssue(createPendingSchema(), value)).toBe(expected);
  });

  const posts: Array<[string, Record<string, unknown>, string]> = [
    ['a valid one', {}, 'ok'],
    [
      'too many amounts',
      { amounts: Array(101).fill(1n) },
      'amounts: must have at most 100 amounts',
    ],
    ['a bad metadata value', { metadata: { k: 1 } }, 'metadata.k: metadata values must be strings'],
  ];
  it.each(posts)('a post with %s', (_, change, expected) => {
    const value = { ...post, ...change };
    expect(firstIssue(replayedPost, value)).toBe(expected);
    expect(firstIssue(postPendingSchema(), value)).toBe(expected);
  });

  it('gives the commands the values a request would', () => {
    expect(v.parse(replayedTransaction, transaction)).toEqual(
      v.parse(createTransactionSchema, transaction),
    );
    expect(v.parse(replayedHold, hold)).toEqual(v.parse(createPendingSchema(), hold));
    expect(v.parse(replayedPost, post)).toEqual(v.parse(postPendingSchema(), post));
  });
});
