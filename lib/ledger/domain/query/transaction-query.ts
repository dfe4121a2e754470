import { type FeatureSet, isEnabled } from '../features.js';
import type { TransactionOrder } from '../point-in-time.js';
import type { Transaction } from '../transaction.js';
import type { Bound, TransactionFilter } from '../transaction-filter.js';
import { type Condition, conjuncts, evaluate, parseQuery, type Schema } from './ast.js';
import {
  type AddressPattern,
  addressField,
  booleanField,
  instantField,
  integerField,
  metadataRule,
  stringField,
} from './values.js';

/** The fields a transaction list filters on, as the reference names them (camelCase aliases accepted). */
export const transactionSchema: Schema<Transaction> = (field) => {
  switch (field) {
    case 'id':
      return integerField((tx) => BigInt(tx.id));
    case 'reference':
      return stringField((tx) => tx.reference, 256);
    case 'timestamp':
      return instantField((tx) => tx.timestamp);
    case 'inserted_at':
    case 'insertedAt':
      return instantField((tx) => tx.insertedAt);
    case 'updated_at':
    case 'updatedAt':
      return instantField((tx) => tx.updatedAt);
    case 'reverted_at':
    case 'revertedAt':
      return instantField((tx) => tx.revertedAt, true);
    case 'reverted':
      return booleanField((tx) => tx.reverted);
    case 'account':
      return addressField((tx) => tx.postings.flatMap((p) => [p.source, p.destination]));
    case 'source':
      return addressField((tx) => tx.postings.map((p) => p.source));
    case 'destination':
      return addressField((tx) => tx.postings.map((p) => p.destination));
    default:
      return metadataRule(field, (tx) => tx.metadata);
  }
};

/**
 * How a transaction list is read: `access`, the index that serves the query's most selective condition (none:
 * the ledger's transactions in id or timestamp order), and `keep`, the whole query evaluated on each
 * transaction read (absent when the index alone answers it).
 */
export interface TransactionPlan {
  access?: TransactionFilter;
  keep?: (tx: Transaction) => boolean;
}

/**
 * Picks, among the conditions every match must satisfy (a top-level `$and`), the most selective one an index
 * serves: a reference (one item), an exact account (its moves, INDEX_TRANSACTION_ACCOUNTS), a metadata value
 * (its index items; not at a point in time when metadata has history, since the index holds current values), a
 * timestamp range (gsi1). Listing by effective time, only the timestamp range fits. Nothing is refused for want
 * of an index: without one the ledger's transactions are read, a bounded number per page.
 */
export function planTransactionQuery(
  raw: string | undefined,
  features: FeatureSet,
  view: { order: TransactionOrder; pit?: string },
): TransactionPlan {
  const query = parseQuery(
    raw,
    transactionSchema,
    '{"$match": {"account": "users:1"}}',
    'transactions',
  );
  if (!query) return {};
  const parts = conjuncts(query);
  const conditions = parts.filter((q): q is Condition => 'op' in q);
  const byId = view.order === 'id';
  const candidates: Array<{ access: TransactionFilter; uses: Condition[] } | undefined> = [
    byId ? referenceAccess(conditions) : undefined,
    byId && isEnabled(features, 'INDEX_TRANSACTION_ACCOUNTS')
      ? accountAccess(conditions)
      : undefined,
    byId && !(view.pit !== undefined && isEnabled(features, 'TRANSACTION_METADATA_HISTORY'))
      ? metadataAccess(conditions)
      : undefined,
    timeAccess(conditions),
  ];
  const chosen = candidates.find((c) => c !== undefined);
  const keep = (tx: Transaction) => evaluate(query, tx, transactionSchema);
  if (!chosen) return { keep };
  // The index answers the query alone when it served every condition exactly.
  const exact = chosen.uses.length === parts.length && chosen.uses.every((c) => c.op !== '$in');
  return exact ? { access: chosen.access } : { access: chosen.access, keep };
}

const ROLES = { account: 'any', source: 'source', destination: 'destination' } as const;

function referenceAccess(conditions: Condition[]) {
  const c = conditions.find((q) => q.field === 'reference' && q.op === '$match');
  return c
    ? { access: { kind: 'reference' as const, reference: c.value as string }, uses: [c] }
    : undefined;
}

function accountAccess(conditions: Condition[]) {
  const c = conditions.find(
    (q) => q.field in ROLES && q.op === '$match' && 'exact' in (q.value as AddressPattern),
  );
  if (!c) return undefined;
  const role = ROLES[c.field as keyof typeof ROLES];
  return {
    access: { kind: 'account' as const, address: (c.value as { exact: string }).exact, role },
    uses: [c],
  };
}

function metadataAccess(conditions: Condition[]) {
  const c = conditions.find((q) => q.op === '$match' && q.field.startsWith('metadata['));
  return c
    ? {
        access: {
          kind: 'metadata' as const,
          key: c.field.slice('metadata['.length, -1),
          value: c.value as string,
        },
        uses: [c],
      }
    : undefined;
}

/** Every bound on `timestamp` among the conditions, tightest kept (the others still hold through `keep`). */
function timeAccess(conditions: Condition[]) {
  const uses = conditions.filter((q) => q.field === 'timestamp' && q.op !== '$in');
  if (uses.length === 0) return undefined;
  let from: Bound | undefined;
  let to: Bound | undefined;
  for (const c of uses) {
    const at = c.value as string;
    if (c.op === '$gt' || c.op === '$gte' || c.op === '$match')
      from = tighter(from, { at, inclusive: c.op !== '$gt' }, 'lower');
    if (c.op === '$lt' || c.op === '$lte' || c.op === '$match')
      to = tighter(to, { at, inclusive: c.op !== '$lt' }, 'upper');
  }
  return {
    access: { kind: 'time' as const, ...(from ? { from } : {}), ...(to ? { to } : {}) },
    uses,
  };
}

function tighter(current: Bound | undefined, next: Bound, side: 'lower' | 'upper'): Bound {
  if (!current) return next;
  if (current.at === next.at) return current.inclusive ? next : current;
  return (side === 'lower' ? next.at > current.at : next.at < current.at) ? next : current;
}
