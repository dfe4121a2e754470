import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../json/bigint-json.js';
import { ReferenceLogConverter } from './convert.js';
import { GoMap, GoStruct, goJson } from './go-json.js';

/** The recorded export: written by Go's encoding/json (test/fixtures/reference-export/generate.go). */
const EXPORT = readFileSync(
  new URL('../../../../test/fixtures/reference-export/export.ndjson', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l !== '');

const convertAll = (lines: string[], options = {}) => {
  const converter = new ReferenceLogConverter(options);
  return lines.map((l, i) => converter.convert(l, i + 1));
};
const refusal = (lines: string[], options = {}) => {
  try {
    convertAll(lines, options);
  } catch (e) {
    return (e as Error).message;
  }
  return 'converted';
};
// biome-ignore lint/suspicious/noExplicitAny: a test edits parsed JSON at any depth
type Json = any;
/** A line of the export with its JSON changed (hashes left as they were unless the change sets them). */
const edit = (line: string, change: (log: Json) => void) => {
  const log = parseJson(line) as Json;
  change(log);
  return stringifyJson(log);
};

describe('ReferenceLogConverter', () => {
  it('converts every log type of the recorded export, its Go-made hash chain verified', () => {
    const entries = convertAll(EXPORT);
    expect(entries).toHaveLength(38);
    expect(entries.map((e) => e.id)).toEqual(Array.from({ length: 38 }, (_, i) => i + 1));
    expect(entries[0]).toEqual({
      id: 1,
      type: 'NEW_TRANSACTION',
      data: {
        transaction: {
          id: 1,
          postings: [
            {
              source: 'world',
              destination: 'users:alice',
              amount: 1180591620717411303424n,
              asset: 'USD/2',
            },
            {
              source: 'world',
              destination: 'users:alice',
              amount: 100000000000000000000n,
              asset: 'EUR/2',
            },
          ],
          metadata: { note: '<fish & chips>', order: '1' },
          timestamp: '2026-02-01T09:30:00.654321Z',
          insertedAt: '2026-03-01T10:00:00.123Z',
          updatedAt: '2026-03-01T10:00:00.123Z',
          reference: 'ref-1',
          reverted: false,
        },
        accountMetadata: { 'users:alice': { city: 'Zürich', tier: 'gold' } },
      },
      date: '2026-03-01T10:00:00.123Z',
      idempotencyKey: 'ik-1',
      hash: '',
    });
    // A null accountMetadata (the reference's nil map) is an empty one.
    expect(entries[1]!.data.accountMetadata).toEqual({});
    expect(entries.slice(2, 6).map((e) => [e.type, e.data, e.date])).toEqual([
      [
        'SET_METADATA',
        { targetType: 'TRANSACTION', targetId: 1, metadata: { a: 'b', line: 'one\ntwo' } },
        '2026-03-01T10:00:02.125Z',
      ],
      [
        'DELETE_METADATA',
        { targetType: 'TRANSACTION', targetId: 1, key: 'order' },
        '2026-03-01T10:00:03.126Z',
      ],
      [
        'SET_METADATA',
        { targetType: 'ACCOUNT', targetId: 'users:bob', metadata: { k: 'v', keep: 'yes' } },
        '2026-03-01T10:00:04.127Z',
      ],
      [
        'DELETE_METADATA',
        { targetType: 'ACCOUNT', targetId: 'users:bob', key: 'k' },
        '2026-03-01T10:00:05.128Z',
      ],
    ]);
  });

  it('converts reverts: the reverted transaction by id, the revert dated as this platform replays it', () => {
    const entries = convertAll(EXPORT);
    const revert = (
      tx: number,
      of: number,
      timestamp: string,
      date: string,
      postings: unknown[],
    ) => ({
      revertedTransaction: { id: of },
      transaction: {
        id: tx,
        postings,
        metadata: { 'com.formance.spec/state/reverts': String(of) },
        timestamp,
        insertedAt: date,
        updatedAt: date,
        reverted: false,
      },
    });
    const aliceBob = {
      source: 'users:alice',
      destination: 'users:bob',
      amount: 9007199254740993n,
      asset: 'USD/2',
    };
    const bobAlice = { ...aliceBob, source: 'users:bob', destination: 'users:alice' };
    // Reference transaction 1 reverted at its log's date: the revert's timestamp is that date (milliseconds).
    expect(entries[6]!.data).toEqual(
      revert(3, 2, '2026-03-01T10:00:06.129Z', '2026-03-01T10:00:06.129Z', [bobAlice]),
    );
    // That revert reverted in turn at its effective date: the timestamp it got here, not the reference's.
    expect(entries[8]!.data).toEqual(
      revert(5, 3, '2026-03-01T10:00:06.129Z', '2026-03-01T10:00:08.131Z', [aliceBob]),
    );
    // The first transaction reverted at its effective date: its microseconds kept.
    expect(entries[9]!.data).toEqual(
      revert(6, 1, '2026-02-01T09:30:00.654321Z', '2026-03-01T10:00:09.132Z', [
        {
          source: 'users:alice',
          destination: 'world',
          amount: 100000000000000000000n,
          asset: 'EUR/2',
        },
        {
          source: 'users:alice',
          destination: 'world',
          amount: 1180591620717411303424n,
          asset: 'USD/2',
        },
      ]),
    );
  });

  it('refuses a tampered log: changed content under its hash, or a changed hash', () => {
    const amount = edit(EXPORT[1]!, (l) => {
      l.data.transaction.postings[0].amount += 1n;
    });
    expect(refusal([EXPORT[0]!, amount])).toMatch(
      /^reference log 2 \(line 2\): hash mismatch: the export says \S+, its content gives \S+ \(the log or one before it was changed\)$/,
    );
    const hash = edit(EXPORT[2]!, (l) => {
      l.hash = Buffer.alloc(32).toString('base64');
    });
    expect(refusal([...EXPORT.slice(0, 2), hash])).toContain(
      'reference log 3 (line 3): hash mismatch',
    );
    // The chain: an intact log after a changed one no longer follows it.
    expect(refusal([EXPORT[0]!, EXPORT[0]!.replace('"id":1,', '"id":2,')])).toContain(
      'reference log 2 (line 2): hash mismatch',
    );
    // Unverified on request (an export whose hashes this platform cannot recompute).
    expect(refusal([EXPORT[0]!, amount], { verifyHashes: false })).toBe('converted');
  });

  it('refuses malformed lines and unknown log types, naming the line and log', () => {
    expect(refusal(['{not json'])).toBe(
      'line 1: not a JSON object (a reference export holds one Log per line)',
    );
    expect(refusal([edit(EXPORT[0]!, (l) => (l.date = 42n))])).toBe(
      'reference log 1 (line 1): date: must be a date-time string',
    );
    expect(refusal([edit(EXPORT[0]!, (l) => (l.data.transaction.postings[0].amount = -1n))])).toBe(
      'reference log 1 (line 1): data.transaction.postings.0.amount: must not be negative',
    );
    expect(refusal([edit(EXPORT[0]!, (l) => (l.data.transaction.postings[0].amount = 1.5))])).toBe(
      'reference log 1 (line 1): data.transaction.postings.0.amount: must be an integer',
    );
    expect(refusal([EXPORT[0]!, edit(EXPORT[1]!, (l) => (l.type = 'INSERTED_SCHEMA'))])).toBe(
      'reference log 2 (line 2): log type INSERTED_SCHEMA cannot be imported (only NEW_TRANSACTION, REVERTED_TRANSACTION, SET_METADATA, DELETE_METADATA)',
    );
    expect(refusal([edit(EXPORT[0]!, (l) => (l.type = 'toString'))])).toMatch(
      /^reference log 1 \(line 1\): log type toString cannot be imported/,
    );
    expect(
      refusal(
        [
          edit(
            EXPORT[0]!,
            (l) => (l.data.transaction.timestamp = '2026-02-01T09:30:00.654321001Z'),
          ),
        ],
        { verifyHashes: false },
      ),
    ).toBe(
      'reference log 1 (line 1): transaction 0: timestamp 2026-02-01T09:30:00.654321001Z is finer than a microsecond',
    );
  });

  it("refuses logs out of order, with gaps, or not from the ledger's start", () => {
    expect(refusal([EXPORT[0]!, EXPORT[2]!])).toBe(
      'reference log 3 (line 2): expected reference log 2 here (ids follow without gaps, oldest first)',
    );
    expect(refusal([EXPORT[1]!, EXPORT[0]!])).toBe(
      "reference log 2 (line 1): the export must start at the ledger's first log (id 0 or 1): export the whole ledger",
    );
    expect(refusal([EXPORT[0]!, EXPORT[0]!])).toBe(
      'reference log 1 (line 2): expected reference log 2 here (ids follow without gaps, oldest first)',
    );
  });

  it('renumbers an export whose logs start at 0, unhashed; refuses a hash among unhashed logs', () => {
    const unhashed = EXPORT.slice(0, 4).map((line) =>
      edit(line, (l) => {
        l.id -= 1n;
        l.hash = null;
      }),
    );
    expect(convertAll(unhashed).map((e) => [e.id, e.hash])).toEqual([
      [1, ''],
      [2, ''],
      [3, ''],
      [4, ''],
    ]);
    const mixed = [...unhashed.slice(0, 3), edit(unhashed[3]!, (l) => (l.hash = 'AAAA'))];
    expect(refusal(mixed)).toBe('reference log 3 (line 4): hashed, unlike the logs before it');
  });

  it('refuses transaction ids it cannot map: a gap, or metadata on a transaction not yet created', () => {
    const gap = edit(EXPORT[1]!, (l) => (l.data.transaction.id = 5n));
    expect(refusal([EXPORT[0]!, gap], { verifyHashes: false })).toBe(
      'reference log 2 (line 2): creates transaction 5 where 1 was next (transaction ids follow without gaps)',
    );
    const unknown = edit(EXPORT[2]!, (l) => (l.data.targetId = 7n));
    expect(refusal([...EXPORT.slice(0, 2), unknown], { verifyHashes: false })).toBe(
      'reference log 3 (line 3): transaction 7 is not created by an earlier log',
    );
  });
});

describe('goJson', () => {
  it("writes what Go's encoding/json writes: struct order, sorted maps, HTML-safe escapes, big integers", () => {
    expect(
      goJson(
        new GoStruct([
          ['z', new GoMap({ b: '<&>', a: 'é\u2028\n\u0001"\\' })],
          ['n', 2n ** 70n],
          ['nil', new GoMap(null)],
          ['list', [true, null]],
        ]),
      ),
    ).toBe(
      '{"z":{"a":"é\\u2028\\n\\u0001\\"\\\\","b":"\\u003c\\u0026\\u003e"},"n":1180591620717411303424,"nil":null,"list":[true,null]}',
    );
  });
});
