import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import { type Account, accountView, sameAccount } from '../domain/account.js';
import { type BankAccount, bankAccountEventView } from '../domain/bank-account.js';
import type { Connector } from '../domain/connectors/connector.js';
import type { ConnectorConfig } from '../domain/connectors/providers.js';
import { type Task, taskView } from '../domain/connectors/tasks.js';
import {
  adjustmentView,
  initiationView,
  type PaymentInitiation,
  redriveAt,
} from '../domain/payment-initiation.js';
import type { PaymentServiceUser } from '../domain/payment-service-user.js';
import { paymentServiceUserView } from '../domain/payment-service-user.js';
import { type Pool, poolView } from '../domain/pool.js';
import { dueKeyOf } from './due-index.js';
import { connectorIndexPartition } from './keys.js';
import type { RecordKind } from './record-store.js';

/**
 * How each record kind is stored. Free-form JSON (an account's raw payload, a pool's query) is kept as JSON text,
 * so numbers of any size and nesting round-trip exactly; everything else is plain attributes.
 */

const text = (value: unknown): string | undefined =>
  value === undefined ? undefined : String(value);
const map = (value: unknown): Record<string, string> => ({ ...(value as Record<string, string>) });
const sameJson = (a: unknown, b: unknown) => stringifyJson(a) === stringifyJson(b);

export const ACCOUNT_KIND: RecordKind<Account> = {
  name: 'ACCOUNT',
  list: 'accounts',
  toItem: (a) => ({ ...accountView(a), raw: stringifyJson(a.raw) }),
  fromItem: (item) =>
    accountView({
      id: String(item.id),
      connectorID: String(item.connectorID),
      provider: '',
      reference: String(item.reference),
      createdAt: String(item.createdAt),
      type: item.type as Account['type'],
      name: text(item.name),
      defaultAsset: text(item.defaultAsset),
      metadata: map(item.metadata),
      raw: parseJson(String(item.raw)) as Record<string, unknown>,
    } as Account),
  same: sameAccount,
  savedEvent: { type: 'payments.saved_account', payload: accountView },
  // Found again when its connector is uninstalled.
  createdIndexItems: (a, environment) => [
    { pk: connectorIndexPartition(environment, 'ACCOUNT', a.connectorID), sk: a.id, id: a.id },
  ],
};

export const BANK_ACCOUNT_KIND: RecordKind<BankAccount> = {
  name: 'BANKACCOUNT',
  list: 'bank-accounts',
  toItem: (b) => ({ ...b }),
  fromItem: (item) => {
    const b: BankAccount = {
      id: String(item.id),
      createdAt: String(item.createdAt),
      name: String(item.name),
      metadata: map(item.metadata),
      relatedAccounts: ((item.relatedAccounts as Record<string, unknown>[] | undefined) ?? []).map(
        (r) => ({
          accountID: String(r.accountID),
          connectorID: String(r.connectorID),
          createdAt: String(r.createdAt),
        }),
      ),
    };
    for (const field of ['accountNumber', 'iban', 'swiftBicCode', 'country', 'psuID'] as const) {
      if (item[field] !== undefined) b[field] = String(item[field]);
    }
    return b;
  },
  same: sameJson,
  savedEvent: { type: 'payments.saved_bank_account', payload: bankAccountEventView },
};

export const PSU_KIND: RecordKind<PaymentServiceUser> = {
  name: 'PSU',
  list: 'payment-service-users',
  toItem: (u) => ({ ...paymentServiceUserView(u) }),
  fromItem: (item) =>
    paymentServiceUserView({
      id: String(item.id),
      createdAt: String(item.createdAt),
      name: String(item.name),
      ...(item.contactDetails ? { contactDetails: map(item.contactDetails) } : {}),
      ...(item.address ? { address: map(item.address) } : {}),
      bankAccountIDs: ((item.bankAccountIDs as unknown[] | undefined) ?? []).map(String),
      metadata: map(item.metadata),
    }),
  same: sameJson,
};

export const POOL_KIND: RecordKind<Pool> = {
  name: 'POOL',
  list: 'pools',
  toItem: (p) => ({
    id: p.id,
    name: p.name,
    createdAt: p.createdAt,
    type: p.type,
    accountIDs: p.accountIDs,
    ...(p.query !== undefined ? { query: stringifyJson(p.query) } : {}),
  }),
  fromItem: (item) => ({
    id: String(item.id),
    name: String(item.name),
    createdAt: String(item.createdAt),
    type: item.type as Pool['type'],
    accountIDs: ((item.accountIDs as unknown[] | undefined) ?? []).map(String),
    ...(item.query !== undefined
      ? { query: parseJson(String(item.query)) as Record<string, unknown> }
      : {}),
  }),
  same: sameJson,
  savedEvent: {
    type: 'payments.saved_pool',
    payload: (p) => {
      const { poolAccounts, ...rest } = poolView(p);
      return { ...rest, accountIDs: poolAccounts };
    },
  },
  deletedEvent: {
    type: 'payments.deleted_pool',
    payload: (p, date) => ({ id: p.id, createdAt: date }),
  },
};

export const CONNECTOR_KIND: RecordKind<Connector> = {
  name: 'CONNECTOR',
  list: 'connectors',
  toItem: (c) => ({
    id: c.id,
    reference: c.reference,
    provider: c.provider,
    name: c.name,
    createdAt: c.createdAt,
    ...(c.updatedAt !== undefined ? { updatedAt: c.updatedAt } : {}),
    scheduledForDeletion: c.scheduledForDeletion,
    // The config holds secrets: stored (the table is encrypted at rest), never answered (configView masks them).
    config: stringifyJson(c.config),
  }),
  fromItem: (item) => ({
    id: String(item.id),
    reference: String(item.reference),
    provider: String(item.provider),
    name: String(item.name),
    createdAt: String(item.createdAt),
    ...(item.updatedAt !== undefined ? { updatedAt: String(item.updatedAt) } : {}),
    scheduledForDeletion: Boolean(item.scheduledForDeletion),
    config: normaliseConfig(parseJson(String(item.config)) as ConnectorConfig),
  }),
  same: sameJson,
};

/** Numbers in a stored config come back as bigint (the exact reader): the config's own are plain numbers. */
function normaliseConfig(config: ConnectorConfig): ConnectorConfig {
  return {
    ...config,
    pollingPeriodMs: Number(config.pollingPeriodMs),
    pageSize: Number(config.pageSize),
  };
}

export const TASK_KIND: RecordKind<Task> = {
  name: 'TASK',
  list: 'tasks',
  toItem: (t) => ({ ...taskView(t) }),
  fromItem: (item) => ({
    id: String(item.id),
    connectorID: item.connectorID === undefined ? '' : String(item.connectorID),
    status: item.status as Task['status'],
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    ...(item.error !== undefined ? { error: String(item.error) } : {}),
  }),
  same: sameJson,
};

/** The reference's event payloads of an initiation, its adjustments and its related payments. */
const initiationEventPayload = (pi: PaymentInitiation) => {
  const { status: _s, error: _e, ...rest } = initiationView(pi);
  return rest;
};

/** When the timer or the worker must act on an initiation: its scheduled time, or its sender's lease end. */
function dueAtOf(pi: PaymentInitiation, status: string | undefined): string | undefined {
  if (pi.sendingSince !== undefined) return redriveAt(pi);
  return status === 'SCHEDULED_FOR_PROCESSING' ? pi.scheduledAt : undefined;
}

/** `dueAt` for the local timer's walk, `dueKey`/`nextRunAtMs` for the worker's due index. */
function dueAttributes(connectorID: string, dueAt: string | undefined): Record<string, unknown> {
  if (dueAt === undefined) return {};
  return { dueAt, dueKey: dueKeyOf(connectorID), nextRunAtMs: Date.parse(dueAt) };
}

export const PAYMENT_INITIATION_KIND: RecordKind<PaymentInitiation> = {
  name: 'INITIATION',
  list: 'payment-initiations',
  // The history lives in the item as JSON text: amounts of any size round-trip exactly.
  toItem: (record) => {
    const { adjustments, relatedPayments, reversals, ...pi } = record;
    return {
      ...pi,
      history: stringifyJson({ adjustments, relatedPayments, reversals }),
      // Found by the timer when it is due: a scheduled sending, or one whose sender died (its lease ends).
      ...dueAttributes(pi.connectorID, dueAtOf(record, adjustments[0]?.status)),
    };
  },
  fromItem: (item) => {
    const history = parseJson(String(item.history)) as Pick<
      PaymentInitiation,
      'adjustments' | 'relatedPayments' | 'reversals'
    >;
    return {
      id: String(item.id),
      connectorID: String(item.connectorID),
      reference: String(item.reference),
      createdAt: String(item.createdAt),
      scheduledAt: String(item.scheduledAt),
      description: String(item.description),
      type: item.type as PaymentInitiation['type'],
      ...(item.sourceAccountID !== undefined
        ? { sourceAccountID: String(item.sourceAccountID) }
        : {}),
      ...(item.destinationAccountID !== undefined
        ? { destinationAccountID: String(item.destinationAccountID) }
        : {}),
      amount: BigInt(String(item.amount)),
      asset: String(item.asset),
      metadata: map(item.metadata),
      adjustments: history.adjustments.map((a) => ({
        ...a,
        ...(a.amount !== undefined ? { amount: BigInt(a.amount) } : {}),
      })),
      relatedPayments: history.relatedPayments,
      reversals: history.reversals.map((r) => ({ ...r, amount: BigInt(r.amount) })),
      ...(item.taskID !== undefined ? { taskID: String(item.taskID) } : {}),
      ...(item.sendingSince !== undefined ? { sendingSince: String(item.sendingSince) } : {}),
    };
  },
  same: sameJson,
  changeEvents: (next, previous) => {
    const known = new Set(previous?.adjustments.map((a) => a.id));
    const related = new Set(previous?.relatedPayments.map((r) => r.paymentID));
    return [
      ...(previous
        ? []
        : [
            {
              type: 'payments.saved_payment_initiation' as const,
              payload: initiationEventPayload(next),
              key: 'initiation',
            },
          ]),
      ...next.adjustments
        .filter((a) => !known.has(a.id))
        .map((a) => ({
          type: 'payments.saved_payment_initiation_adjustment' as const,
          payload: { ...adjustmentView(a), paymentInitiationID: next.id },
          key: `adjustment/${a.id}`,
        })),
      ...next.relatedPayments
        .filter((r) => !related.has(r.paymentID))
        .map((r) => ({
          type: 'payments.saved_payment_initiation_related_payment' as const,
          payload: { paymentInitiationID: next.id, paymentID: r.paymentID },
          key: `related/${r.paymentID}`,
        })),
    ];
  },
};
