import { describe, expect, it } from 'vitest';
import { parseJson } from '../../json/bigint-json.js';
import type { LogEntry } from '../../ledger/domain/logs.js';
import { MAX_RECORD_BYTES, recordsOf } from './kinesis.js';

const log = (id: number, noteBytes: number): LogEntry => ({
  id,
  type: 'SET_METADATA',
  data: { targetType: 'ACCOUNT', targetId: 'a', metadata: { note: 'x'.repeat(noteBytes) } },
  date: '2026-03-01T10:00:00Z',
  idempotencyKey: '',
  hash: '',
});

describe('kinesis records of a batch', () => {
  it('is one record while the batch fits in 1 MiB', () => {
    const records = recordsOf(
      { environment: 'e', ledger: 'main', logs: [log(1, 10), log(2, 10)] },
      'main',
    );
    expect(records).toHaveLength(1);
    expect(
      (parseJson(Buffer.from(records[0]!).toString()) as Array<{ id: bigint }>).map((l) => l.id),
    ).toEqual([1n, 2n]);
  });

  it('splits a larger batch into consecutive records of at most 1 MiB with the partition key', () => {
    const logs = Array.from({ length: 7 }, (_, i) => log(i + 1, 300_000)); // ~2.1 MB
    const records = recordsOf({ environment: 'e', ledger: 'main', logs }, 'main');
    expect(records.map((r) => r.length <= MAX_RECORD_BYTES - 4)).toEqual([true, true, true]);
    const ids = records.map((r) =>
      (parseJson(Buffer.from(r).toString()) as Array<{ id: bigint }>).map((l) => Number(l.id)),
    );
    expect(ids).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });
});
