import { describe, expect, it } from 'vitest';
import { LedgerWrites } from './ledger-writes.js';
import { holdWritesOf } from './observe.js';

describe('holdWritesOf', () => {
  it("tells of a write batch that touches a ledger's holds partition, and of no other", () => {
    const writes = new LedgerWrites();
    let told = 0;
    holdWritesOf(writes).on(() => told++);
    writes.notify([{ table: 'ledger', pk: 'E#default#L#books#LOG', sk: '000000000000001' }]);
    writes.notify([{ table: 'ledger', pk: 'E#default#L#books#A#users:PEND', sk: 'A' }]);
    expect(told).toBe(0);
    writes.notify([
      { table: 'ledger', pk: 'E#default#L#books', sk: 'HEAD' },
      { table: 'ledger', pk: 'E#e1#L#books#PEND', sk: '000000000000007' },
    ]);
    expect(told).toBe(1);
  });
});
