import { ValidationError } from '../../../errors/index.js';
import { ASSET } from '../../../money/asset.js';
import type { AccountRecord } from '../account.js';
import type { AddressFilter } from '../account-filter.js';
import { type FeatureSet, isEnabled } from '../features.js';
import {
  type Condition,
  conjuncts,
  evaluate,
  type FieldRule,
  parseQuery,
  type Schema,
} from './ast.js';
import {
  type AddressPattern,
  addressField,
  compare,
  integerOperand,
  metadataRule,
  ORDERED,
} from './values.js';

/** One row of the volumes list as a filter sees it: the (account, asset) pair's volumes and its account. */
export interface VolumeCandidate {
  account: AccountRecord;
  asset: string;
  balance: bigint;
}

const BALANCE_FIELD = /^balance\[(.{1,64})\]$/s;

function balanceRule(field: string): FieldRule<VolumeCandidate> | undefined {
  const asset = field === 'balance' ? null : BALANCE_FIELD.exec(field)?.[1];
  if (asset === undefined) return undefined;
  if (asset !== null && !ASSET.test(asset))
    throw new ValidationError(`query: ${JSON.stringify(asset.slice(0, 64))} is not an asset`);
  // `balance[ASSET]` holds for the rows of that asset only, as the reference's (balance and asset) clause.
  return {
    operators: ORDERED,
    operand: integerOperand,
    test: (row, op, operand) =>
      (asset === null || row.asset === asset) && compare(row.balance, op, operand as bigint),
  };
}

/** The reference's volume filters: `address` (alias `account`), `balance`/`balance[ASSET]`, `metadata`. */
export const volumeSchema: Schema<VolumeCandidate> = (field) => {
  if (field === 'address' || field === 'account')
    return addressField((row) => [row.account.address]);
  return metadataRule(field, (row) => row.account.metadata) ?? balanceRule(field);
};

/** The accounts read (an exact address, or a prefix with INDEX_ADDRESS_SEGMENTS), and the rows kept. */
export interface VolumePlan {
  access?: AddressFilter;
  keep?: (row: VolumeCandidate) => boolean;
}

export function planVolumeQuery(raw: string | undefined, features: FeatureSet): VolumePlan {
  const query = parseQuery(raw, volumeSchema, '{"$match": {"address": "users:"}}', 'volumes');
  if (!query) return {};
  const parts = conjuncts(query);
  const addressMatch = (pick: (p: AddressPattern) => boolean) =>
    parts.find(
      (q): q is Condition =>
        'op' in q &&
        (q.field === 'address' || q.field === 'account') &&
        q.op === '$match' &&
        pick(q.value as AddressPattern),
    );
  const exact = addressMatch((p) => 'exact' in p);
  const prefix = isEnabled(features, 'INDEX_ADDRESS_SEGMENTS')
    ? addressMatch((p) => 'prefix' in p)
    : undefined;
  const chosen = exact ?? prefix;
  const access = chosen ? addressAccess(chosen.value as AddressPattern) : undefined;
  const keep = (row: VolumeCandidate) => evaluate(query, row, volumeSchema);
  return { ...(access ? { access } : {}), ...(chosen && parts.length === 1 ? {} : { keep }) };
}

function addressAccess(p: AddressPattern): AddressFilter | undefined {
  return 'exact' in p
    ? { address: p.exact, prefix: false }
    : 'prefix' in p
      ? { address: p.prefix, prefix: true }
      : undefined;
}

/** The group an address falls in with `groupBy` = n: its first n segments (the whole address when shorter). */
export function groupOf(address: string, level: number): string {
  return address.split(':').slice(0, level).join(':');
}

/** `groupBy`: a positive number of address segments. */
export function readGroupBy(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '' || raw === '0') return undefined;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > 100)
    throw new ValidationError('groupBy: must be a number of address segments from 0 to 100');
  return Number(raw);
}
