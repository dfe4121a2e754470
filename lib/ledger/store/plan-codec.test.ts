import { describe, expect, it } from 'vitest';
import { decodePlanOps, encodePlanOps } from './plan-codec.js';

describe('a staged bulk plan part, deflated', () => {
  it('keeps every value and its type: bigints, numbers, byte arrays, sets, nesting, deletes', () => {
    const ops = [
      {
        put: {
          pk: 'E#default#L#x#A#users:1',
          sk: 'V#USD/2',
          input: 123456789012345678901234567890n,
          output: 0n,
          count: 3,
          z: new Uint8Array([0, 1, 2, 255]),
          tags: new Set(['a', 'b']),
          nested: { list: [1n, 'two', { deep: true, none: null }] },
        },
      },
      { del: { pk: 'E#default#L#x#STAGED', sk: '000000000000001#000000000000000' } },
    ];
    const bytes = encodePlanOps(ops);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(decodePlanOps(bytes)).toEqual(ops);
    const back = decodePlanOps(bytes) as Array<{ put: Record<string, unknown> }>;
    expect(typeof back[0]!.put.input).toBe('bigint');
    expect(typeof back[0]!.put.count).toBe('number');
  });

  it('keeps an object of the user that looks like a tag as it is (account metadata is free text)', () => {
    const ops = [
      {
        put: {
          pk: 'E#default#L#x#A#users:1',
          sk: 'A',
          metadata: { $bigint: '5' },
          also: [{ $set: ['a'] }, { $bytes: 'AAE=' }, { $object: [['k', 'v']] }, { $set: 1, x: 2 }],
        },
      },
    ];
    expect(decodePlanOps(encodePlanOps(ops))).toEqual(ops);
  });

  it('is several times smaller than the writes it holds, which repeat their keys and names', () => {
    const ops = Array.from({ length: 98 }, (_, i) => ({
      put: {
        pk: `E#default#L#bench#A#users:${i}`,
        sk: 'V#USD/2',
        account: `users:${i}`,
        asset: 'USD/2',
        input: BigInt(1_000 + i),
        output: BigInt(i),
      },
    }));
    const plain = JSON.stringify(ops, (_k, v) => (typeof v === 'bigint' ? String(v) : v)).length;
    expect(encodePlanOps(ops).byteLength * 4).toBeLessThan(plain);
  });
});
