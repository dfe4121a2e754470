import { describe, expect, it } from 'vitest';
import { readListSort } from './list-sort.js';

describe('readListSort', () => {
  it('reads the served fields and directions (descending by default)', () => {
    expect(readListSort(undefined, 'transactions')).toBeUndefined();
    expect(readListSort('timestamp:asc', 'transactions')).toEqual({
      key: 'effective',
      ascending: true,
    });
    expect(readListSort('inserted_at:desc', 'transactions')).toEqual({
      key: 'id',
      ascending: false,
    });
    expect(readListSort('id', 'transactions')).toEqual({ key: 'id', ascending: false });
    expect(readListSort('date:desc', 'logs')).toEqual({ key: 'id', ascending: false });
    expect(readListSort('address:asc', 'accounts')).toEqual({ key: 'address', ascending: true });
  });

  it('refuses what no key serves, with what the list sorts on', () => {
    expect(() => readListSort('updated_at:desc', 'transactions')).toThrow(
      'sort: transactions are sorted by id, inserted_at, insertedAt, timestamp here (no index keeps "updated_at" in order)',
    );
    expect(() => readListSort('date:asc', 'logs')).toThrow(
      'sort: logs are listed by date desc only',
    );
    expect(() => readListSort('timestamp:up', 'transactions')).toThrow(
      'sort: must be <field>:<asc|desc> (transactions: id, inserted_at, insertedAt, timestamp)',
    );
    expect(() => readListSort('constructor', 'accounts')).toThrow(/no index keeps "constructor"/);
  });
});
