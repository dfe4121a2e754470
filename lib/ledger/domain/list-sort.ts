import { ValidationError } from '../../errors/index.js';

/**
 * The reference's `sort=<field>:<asc|desc>` on the ledger's lists, read into the orders this platform's keys
 * serve. Each list names the fields it sorts on and what each means here: a transaction's `inserted_at` is its
 * id's order (ids are assigned in commit order), `timestamp` is the effective-time index; a log's `date` is its
 * id's order. Directions a list cannot page in (its key is read one way) are refused with the reason, never
 * answered in another order.
 */
export type ListName = 'transactions' | 'logs' | 'accounts';

export interface ListSort<K extends string = string> {
  key: K;
  ascending: boolean;
}

interface SortField<K extends string> {
  key: K;
  /** The directions served; both when absent. */
  only?: 'asc' | 'desc';
}

const FIELDS: { [L in ListName]: Record<string, SortField<string>> } = {
  transactions: {
    id: { key: 'id' },
    inserted_at: { key: 'id' },
    insertedAt: { key: 'id' },
    timestamp: { key: 'effective' },
  },
  logs: { id: { key: 'id', only: 'desc' }, date: { key: 'id', only: 'desc' } },
  accounts: { address: { key: 'address', only: 'asc' } },
};

const SORT = /^([A-Za-z_]{1,32})(?::(asc|desc))?$/;

/** The sort a list request asks for, or undefined without `sort`; a 400 naming what the list serves otherwise. */
export function readListSort(raw: string | undefined, list: ListName): ListSort | undefined {
  if (raw === undefined || raw === '') return undefined;
  const fields = FIELDS[list];
  const served = Object.keys(fields).join(', ');
  const m = SORT.exec(raw);
  if (!m) throw new ValidationError(`sort: must be <field>:<asc|desc> (${list}: ${served})`);
  const [, name, direction = 'desc'] = m as unknown as [string, string, 'asc' | 'desc'];
  const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (!field)
    throw new ValidationError(
      `sort: ${list} are sorted by ${served} here (no index keeps ${JSON.stringify(name)} in order)`,
    );
  if (field.only !== undefined && field.only !== direction)
    throw new ValidationError(`sort: ${list} are listed by ${name} ${field.only} only`);
  return { key: field.key, ascending: direction === 'asc' };
}
