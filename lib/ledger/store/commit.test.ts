/**
 * The incremental action count of a group commit against what the commit really sends: for any sequence of
 * requests' writes (items written twice, deferred and not, log entries filling pages), `ActionTally` answers
 * exactly the number of actions `commitItems` builds, HEAD's included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActionTally, commitItems } from './commit.js';
import type { CommitWrite } from './decide-batch.js';

const write = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    key: fc.integer({ min: 0, max: 6 }),
    deferrable: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('check' as const), key: fc.integer({ min: 0, max: 6 }) }),
  fc.record({
    kind: fc.constant('log' as const),
    bodyChars: fc.integer({ min: 10, max: 120_000 }),
  }),
);

type Drawn = typeof write extends fc.Arbitrary<infer T> ? T : never;

let logId = 0;
function toWrite(drawn: Drawn): CommitWrite {
  const key = (n: number) => ({ pk: `P#${n}`, sk: 'S' });
  switch (drawn.kind) {
    case 'put':
      return {
        item: { Put: { TableName: 't', Item: { ...key(drawn.key), v: 1 } } },
        ...(drawn.deferrable ? { deferrable: true } : {}),
      };
    case 'delete':
      return { item: { Delete: { TableName: 't', Key: key(drawn.key) } } };
    case 'check':
      return {
        item: {
          ConditionCheck: {
            TableName: 't',
            Key: key(drawn.key),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      };
    case 'log': {
      logId++;
      const Item = {
        pk: 'LOG',
        sk: String(logId).padStart(15, '0'),
        id: logId,
        body: 'x'.repeat(drawn.bodyChars),
        ev: '{}',
      };
      return { item: { Put: { TableName: 't', Item } }, log: true };
    }
  }
}

describe('ActionTally', () => {
  it('counts what commitItems builds, request by request, both transports', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(write, { maxLength: 6 }), { maxLength: 12 }),
        fc.boolean(),
        (requests, deferred) => {
          const tally = new ActionTally(deferred);
          const all: CommitWrite[] = [];
          for (const drawn of requests) {
            const writes = drawn.map(toWrite);
            const expected =
              commitItems([...all, ...writes]).filter((w) => !(deferred && w.deferrable)).length +
              1;
            expect(tally.actionsWith(writes)).toBe(expected);
            tally.add(writes);
            all.push(...writes);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a log entry past a page of 300,000 characters starts a second page: one action more', () => {
    const tally = new ActionTally(false);
    const log = (chars: number): CommitWrite => toWrite({ kind: 'log', bodyChars: chars });
    tally.add([log(200_000)]);
    expect(tally.actionsWith([log(90_000)])).toBe(2);
    expect(tally.actionsWith([log(110_000)])).toBe(3);
  });
});
