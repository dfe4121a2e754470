import { ValidationError } from '../../../errors/index.js';
import { ASSET } from '../../../money/asset.js';
import type { AccountRecord, AccountVolumes } from '../account.js';
import { type AccountFilter, INDEXED_SEGMENTS } from '../account-filter.js';
import { type FeatureSet, isEnabled } from '../features.js';
import {
  type Condition,
  conjuncts,
  evaluate,
  type FieldRule,
  fields,
  parseQuery,
  type Schema,
} from './ast.js';
import {
  type AddressPattern,
  addressField,
  compare,
  instantField,
  integerOperand,
  metadataRule,
  ORDERED,
} from './values.js';

/** An account as a filter sees it: its item, and its volumes when the query names a balance. */
export interface AccountCandidate {
  account: AccountRecord;
  volumes?: AccountVolumes;
}

const BALANCE_FIELD = /^balance\[(.{1,64})\]$/s;

/** `balance[ASSET]` (that asset's balance; no volume in it: no match) or `balance` (any asset's balance). */
function balanceRule(field: string): FieldRule<AccountCandidate> | undefined {
  const asset = field === 'balance' ? null : BALANCE_FIELD.exec(field)?.[1];
  if (asset === undefined) return undefined;
  if (asset !== null && !ASSET.test(asset))
    throw new ValidationError(`query: ${JSON.stringify(asset.slice(0, 64))} is not an asset`);
  return {
    operators: ORDERED,
    operand: integerOperand,
    test: ({ volumes = {} }, op, operand) =>
      asset === null
        ? Object.values(volumes).some((v) => compare(v.balance, op, operand as bigint))
        : compare(volumes[asset]?.balance, op, operand as bigint),
  };
}

/** The fields an account list filters on, as the reference names them (camelCase aliases accepted). */
export const accountSchema: Schema<AccountCandidate> = (field) => {
  switch (field) {
    case 'address':
    case 'account':
      return addressField(({ account }) => [account.address]);
    case 'first_usage':
    case 'firstUsage':
      return instantField(({ account }) => account.firstUsage);
    case 'insertion_date':
    case 'insertionDate':
      return instantField(({ account }) => account.insertionDate);
    case 'updated_at':
    case 'updatedAt':
      return instantField(({ account }) => account.updatedAt);
    default:
      return metadataRule(field, ({ account }) => account.metadata) ?? balanceRule(field);
  }
};

/**
 * How an account list is read: `access`, the index serving the query's most selective condition (none: every
 * account by address), `keep`, the whole query evaluated on each account read, and whether that needs volumes.
 */
export interface AccountPlan {
  access?: AccountFilter;
  keep?: (candidate: AccountCandidate) => boolean;
  needsVolumes?: boolean;
}

/**
 * Among the conditions every match must satisfy: an exact address (one item), a metadata value (its index; not
 * at a point in time with metadata history, the index holding current values), an address prefix or segment
 * pattern (INDEX_ADDRESS_SEGMENTS), balance bounds on one asset (INDEX_ACCOUNT_BALANCES; not at a point in
 * time). Nothing is refused for want of an index. Balances at a point in time are refused: their volumes then
 * are read per account on a clock the query does not name.
 */
export function planAccountQuery(
  raw: string | undefined,
  features: FeatureSet,
  pit?: string,
): AccountPlan {
  const query = parseQuery(raw, accountSchema, '{"$match": {"address": "users:"}}', 'accounts');
  if (!query) return {};
  const parts = conjuncts(query);
  const conditions = parts.filter((q): q is Condition => 'op' in q);
  const needsVolumes = fields(query).some((f) => f === 'balance' || BALANCE_FIELD.test(f));
  if (needsVolumes && pit !== undefined)
    throw new ValidationError(
      'query: balance filters are not supported with pit: the balance index holds current balances, not those at pit',
    );
  const address = (pick: (p: AddressPattern) => boolean) =>
    conditions.find(
      (c) =>
        (c.field === 'address' || c.field === 'account') &&
        c.op === '$match' &&
        pick(c.value as AddressPattern),
    );
  const segments = isEnabled(features, 'INDEX_ADDRESS_SEGMENTS');
  const candidates: Array<{ access: AccountFilter; uses: Condition[] } | undefined> = [
    pickAddress(address((p) => 'exact' in p)),
    pit !== undefined && isEnabled(features, 'ACCOUNT_METADATA_HISTORY')
      ? undefined
      : pickMetadata(conditions),
    segments ? pickAddress(address((p) => 'prefix' in p)) : undefined,
    segments
      ? pickAddress(
          address(
            (p) => 'segments' in p && p.segments.slice(0, INDEXED_SEGMENTS).some((s) => s !== null),
          ),
        )
      : undefined,
    isEnabled(features, 'INDEX_ACCOUNT_BALANCES') && pit === undefined
      ? pickBalance(conditions)
      : undefined,
  ];
  const chosen = candidates.find((c) => c !== undefined);
  const keep = (candidate: AccountCandidate) => evaluate(query, candidate, accountSchema);
  const exact = chosen !== undefined && chosen.uses.length === parts.length;
  return {
    ...(chosen ? { access: chosen.access } : {}),
    ...(exact ? {} : { keep, ...(needsVolumes ? { needsVolumes } : {}) }),
  };
}

function pickAddress(c: Condition | undefined) {
  if (!c) return undefined;
  const p = c.value as AddressPattern;
  const access: AccountFilter =
    'exact' in p
      ? { address: p.exact, prefix: false }
      : 'prefix' in p
        ? { address: p.prefix, prefix: true }
        : { segments: p.segments };
  return { access, uses: [c] };
}

function pickMetadata(conditions: Condition[]) {
  const c = conditions.find((q) => q.op === '$match' && q.field.startsWith('metadata['));
  return c
    ? {
        access: {
          metadata: { key: c.field.slice('metadata['.length, -1), value: c.value as string },
        },
        uses: [c],
      }
    : undefined;
}

/** Bounds on one asset's balance, combined into one inclusive range of the balance index. */
function pickBalance(conditions: Condition[]) {
  const first = conditions.find((q) => BALANCE_FIELD.test(q.field) && q.op !== '$in');
  if (!first) return undefined;
  const uses = conditions.filter((q) => q.field === first.field && q.op !== '$in');
  let min: bigint | undefined;
  let max: bigint | undefined;
  for (const { op, value } of uses) {
    const v = value as bigint;
    const low = op === '$gt' ? v + 1n : op === '$gte' || op === '$match' ? v : undefined;
    const high = op === '$lt' ? v - 1n : op === '$lte' || op === '$match' ? v : undefined;
    if (low !== undefined) min = min === undefined || low > min ? low : min;
    if (high !== undefined) max = max === undefined || high < max ? high : max;
  }
  const asset = BALANCE_FIELD.exec(first.field)![1]!;
  return {
    access: {
      balance: {
        asset,
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
      },
    },
    uses,
  };
}
