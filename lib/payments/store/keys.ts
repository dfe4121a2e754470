import { inEnvironment } from '../../environments/key-scope.js';
import type { PaymentFilter } from '../domain/input.js';
import type { Payment } from '../domain/payment.js';

/**
 * Keys of the payments table (docs/data-model.md). Every partition key, of the table and of gsi1, starts with
 * `E#<environment>#` (`inEnvironment`, docs/decisions/tenancy.md "Environments"): an environment's payments and their
 * index items are partitions of their own. The same (connectorID, reference, type) in two environments is two
 * payments with the same id in different partitions. The layouts below are written without that prefix.
 *
 * - Payment: `PAYMENT#<id>` / `PAYMENT`, on gsi1 `PAYMENTS` / `<sortable createdAt>#<id>` (the unfiltered list).
 * - Filter index items: one per non-empty combination of (status, type, connectorID) — seven per payment —
 *   `PAYMENTS#status=<S>[#type=<T>][#connectorID=<C>]` / `<sortable createdAt>#<id>`, holding only the id.
 *   Every filter and every combination of filters is then one key range, read newest first and resolved with
 *   one BatchGetItem: no scan, no FilterExpression, no combination refused. type and connectorID never change;
 *   a status change moves the four items that name the status, in the same transaction as the payment.
 *   Enum values cannot contain `#` or `=`, and connectorID (free text) always comes last, so the encoding is
 *   unambiguous.
 */
export const paymentKey = (environment: string, id: string) => ({
  pk: inEnvironment(environment, `PAYMENT#${id}`),
  sk: 'PAYMENT',
});

/** gsi1: an environment's payments, newest first. */
export const paymentsByCreation = (environment: string): string =>
  inEnvironment(environment, 'PAYMENTS');

export const creationSort = (sortableCreatedAt: string, id: string) => `${sortableCreatedAt}#${id}`;

const FILTER_ORDER = ['status', 'type', 'connectorID'] as const;

/** The index partition of one combination of filter values (at least one set). */
export function filterPartition(environment: string, filter: PaymentFilter): string {
  const parts = FILTER_ORDER.filter((name) => filter[name] !== undefined).map(
    (name) => `${name}=${filter[name]}`,
  );
  if (parts.length === 0) throw new Error('filterPartition needs at least one filter');
  return inEnvironment(environment, `PAYMENTS#${parts.join('#')}`);
}

/** Every index partition a payment belongs to: one per non-empty subset of its filter values. */
export function indexPartitions(
  environment: string,
  payment: Pick<Payment, 'status' | 'type' | 'connectorID'>,
): string[] {
  const partitions: string[] = [];
  for (let mask = 1; mask < 1 << FILTER_ORDER.length; mask++) {
    const filter: PaymentFilter = {};
    FILTER_ORDER.forEach((name, bit) => {
      if (mask & (1 << bit)) filter[name] = payment[name] as never;
    });
    partitions.push(filterPartition(environment, filter));
  }
  return partitions;
}

/**
 * The records kept beside payments (accounts, bank accounts, payment service users, pools), one layout for all:
 * `<KIND>#<id>` / `<KIND>`, listed on gsi1 under `<KIND>S` / `<sortable createdAt>#<id>`. The kind names never
 * contain `#`, so no two kinds' keys can meet.
 */
export const RECORD_KINDS = [
  'ACCOUNT',
  'BANKACCOUNT',
  'PSU',
  'POOL',
  'CONNECTOR',
  'TASK',
  'INITIATION',
  'PSUCONNECTOR',
  'LINKATTEMPT',
] as const;
export type RecordKindName = (typeof RECORD_KINDS)[number];

export const recordKey = (environment: string, kind: RecordKindName, id: string) => ({
  pk: inEnvironment(environment, `${kind}#${id}`),
  sk: kind,
});

/** gsi1: an environment's records of one kind, by creation. */
export const recordsByCreation = (environment: string, kind: RecordKindName): string =>
  inEnvironment(environment, `${kind}S`);

/**
 * An account's balance history lives in the account's partition: one row per period of constant balance,
 * `BALANCE#<asset>#<sortable createdAt>`, and one `LATEST#<asset>` row naming the current period (what a new
 * reading is compared with, under a version condition).
 */
export const balanceRowKey = (
  environment: string,
  accountId: string,
  asset: string,
  sortableStart: string,
) => ({
  pk: recordKey(environment, 'ACCOUNT', accountId).pk,
  sk: `BALANCE#${asset}#${sortableStart}`,
});

export const latestBalanceKey = (environment: string, accountId: string, asset: string) => ({
  pk: recordKey(environment, 'ACCOUNT', accountId).pk,
  sk: `LATEST#${asset}`,
});

export const BALANCE_ROW_PREFIX = 'BALANCE#';
export const LATEST_BALANCE_PREFIX = 'LATEST#';

/** A connector's schedules and their runs live in the connector's partition. */
export const scheduleKey = (environment: string, connectorId: string, scheduleId: string) => ({
  pk: recordKey(environment, 'CONNECTOR', connectorId).pk,
  sk: `SCHEDULE#${scheduleId}`,
});
export const SCHEDULE_PREFIX = 'SCHEDULE#';

export const instanceKey = (
  environment: string,
  connectorId: string,
  scheduleId: string,
  sortableStart: string,
  instanceId: string,
) => ({
  pk: recordKey(environment, 'CONNECTOR', connectorId).pk,
  sk: `INSTANCE#${scheduleId}#${sortableStart}#${instanceId}`,
});
export const instancePrefix = (scheduleId: string) => `INSTANCE#${scheduleId}#`;

/**
 * Index items of what a connector wrote, so that uninstalling it finds all of it: `<KIND>S#connectorID=<C>` /
 * `<id>`, holding the id (payments have theirs already: `PAYMENTS#connectorID=<C>`).
 */
export const connectorIndexPartition = (
  environment: string,
  kind: RecordKindName,
  connectorId: string,
) => inEnvironment(environment, `${kind}S#connectorID=${connectorId}`);
