import * as v from 'valibot';
import type { EventKind } from './catalog.js';
import { updatedMappingPayloadSchema } from './ledger-mapping.js';
import { savedPaymentPayloadSchema } from './payments.js';
import { endpointDisabledPayloadSchema, endpointRecoveredPayloadSchema } from './webhooks.js';

/**
 * Every event kind's payload (docs/api.md §5), as valibot schemas: the event catalogue
 * (`GET /api/webhooks/event-types`) answers them as JSON Schema, and a test checks the events the services emit
 * against them. Where a record carries a provider's free-form data or fields that grow with the platform, the
 * schema is open (`looseObject`): it names what every such event has, and a receiver should ignore the rest.
 */

/** Exact integers: `bigint` when read with lib/json, a safe number when a receiver used plain JSON.parse. */
const integer = v.union([v.bigint(), v.pipe(v.number(), v.safeInteger())]);
const instant = v.pipe(v.string(), v.isoTimestamp());
const text = v.pipe(v.string(), v.minLength(1));
const metadata = v.record(v.string(), v.string());

const posting = v.strictObject({
  source: text,
  destination: text,
  amount: integer,
  asset: text,
});
const volumes = v.record(
  v.string(),
  v.record(v.string(), v.strictObject({ input: integer, output: integer, balance: integer })),
);
const transaction = v.looseObject({
  id: integer,
  postings: v.array(posting),
  metadata,
  timestamp: instant,
  insertedAt: instant,
  reference: v.optional(v.string()),
  reverted: v.boolean(),
  postCommitVolumes: v.optional(volumes),
  preCommitVolumes: v.optional(volumes),
});
const targetType = v.picklist(['ACCOUNT', 'TRANSACTION']);
/** A pending transfer (hold) as the ledger answers it (docs/api.md §3.6). */
const pending = v.looseObject({
  id: integer,
  postings: v.array(
    v.looseObject({
      source: text,
      destination: text,
      amount: integer,
      asset: text,
      posted: integer,
      voided: integer,
      remaining: integer,
    }),
  ),
  metadata,
  insertedAt: instant,
  expiresAt: v.optional(instant),
  status: v.picklist(['PENDING', 'POSTED', 'VOIDED', 'EXPIRED']),
  transactions: v.array(integer),
});

const account = v.looseObject({
  id: text,
  connectorID: text,
  provider: text,
  reference: text,
  createdAt: instant,
  type: v.string(),
  metadata,
  raw: v.record(v.string(), v.unknown()),
});
const bankAccount = v.looseObject({
  id: text,
  createdAt: instant,
  name: v.string(),
  accountNumber: v.optional(v.pipe(v.string(), v.description('Masked: its last digits only.'))),
  iban: v.optional(v.pipe(v.string(), v.description('Masked: its first and last four.'))),
  metadata,
  relatedAccounts: v.array(
    v.strictObject({ accountID: text, connectorID: text, createdAt: instant }),
  ),
});
const initiation = v.looseObject({
  id: text,
  connectorID: text,
  provider: text,
  reference: text,
  createdAt: instant,
  scheduledAt: instant,
  description: v.string(),
  type: v.string(),
  amount: integer,
  asset: text,
  metadata,
});

export interface EventKindDescription {
  description: string;
  payload: v.GenericSchema;
}

export const EVENT_PAYLOADS: Record<EventKind, EventKindDescription> = {
  'ledger.committed_transactions': {
    description: 'A transaction was committed (not on dry run, not on an idempotent replay).',
    payload: v.strictObject({
      ledger: text,
      transactions: v.array(transaction),
      accountMetadata: v.optional(v.record(v.string(), metadata)),
    }),
  },
  'ledger.saved_metadata': {
    description: 'Metadata was set on an account or a transaction.',
    payload: v.strictObject({ ledger: text, targetType, targetId: v.string(), metadata }),
  },
  'ledger.deleted_metadata': {
    description: 'A metadata key was deleted from an account or a transaction.',
    payload: v.strictObject({ ledger: text, targetType, targetId: v.string(), key: v.string() }),
  },
  'ledger.updated_mapping': {
    description: "A ledger's v1 mapping was replaced.",
    payload: updatedMappingPayloadSchema,
  },
  'ledger.reverted_transaction': {
    description:
      'A transaction was reverted: the reverted one and the transaction that reverts it.',
    payload: v.strictObject({
      ledger: text,
      revertedTransaction: transaction,
      revertTransaction: transaction,
    }),
  },
  'ledger.balance_monitor_triggered': {
    description:
      "A write made a balance monitor's condition start to hold (once per crossing, after the write's own event).",
    payload: v.strictObject({
      ledger: text,
      monitor: text,
      condition: v.variant('type', [
        v.strictObject({ type: v.picklist(['below', 'above']), amount: integer }),
        v.strictObject({ type: v.picklist(['negative', 'changes']) }),
      ]),
      account: text,
      asset: text,
      before: integer,
      after: integer,
      logId: integer,
      transaction: v.optional(transaction),
    }),
  },
  'ledger.created_pending': {
    description:
      'A pending transfer (hold) was created: its postings reserve money (ledgers with PENDING_TRANSFERS).',
    payload: v.strictObject({ ledger: text, pending }),
  },
  'ledger.posted_pending': {
    description:
      "Money of a hold was posted, in full or in part, as a transaction (after that transaction's ledger.committed_transactions).",
    payload: v.strictObject({ ledger: text, pending, transaction }),
  },
  'ledger.voided_pending': {
    description:
      'What remained of a hold was released: voided (VOID), expired (EXPIRED) or released by a final post (FINAL).',
    payload: v.strictObject({
      ledger: text,
      pending,
      reason: v.picklist(['VOID', 'EXPIRED', 'FINAL']),
      released: v.array(integer),
    }),
  },
  'payments.saved_payment': {
    description: 'A payment was created or updated.',
    payload: savedPaymentPayloadSchema,
  },
  'payments.saved_account': {
    description: 'An account was created or changed (through the API or a connector).',
    payload: account,
  },
  'payments.saved_balance': {
    description: 'A provider reported a new balance for an account and asset (not a confirmation).',
    payload: v.strictObject({
      accountID: text,
      connectorID: text,
      provider: text,
      asset: text,
      balance: integer,
      createdAt: instant,
      lastUpdatedAt: instant,
    }),
  },
  'payments.saved_bank_account': {
    description: 'A bank account was created, its metadata changed, or it was linked to a user.',
    payload: bankAccount,
  },
  'payments.saved_pool': {
    description: 'A pool was created, or its accounts or query changed.',
    payload: v.strictObject({
      id: text,
      name: v.string(),
      createdAt: instant,
      type: v.picklist(['STATIC', 'DYNAMIC']),
      accountIDs: v.array(v.string()),
      query: v.optional(v.record(v.string(), v.unknown())),
    }),
  },
  'payments.deleted_pool': {
    description: 'A pool was deleted (`createdAt` is the deletion time).',
    payload: v.strictObject({ id: text, createdAt: instant }),
  },
  'payments.saved_payment_initiation': {
    description: 'A payment initiation was created.',
    payload: initiation,
  },
  'payments.saved_payment_initiation_adjustment': {
    description: "A payment initiation's status changed.",
    payload: v.strictObject({
      id: text,
      paymentInitiationID: text,
      createdAt: instant,
      status: v.string(),
      amount: v.optional(integer),
      asset: v.optional(text),
      error: v.optional(v.string()),
      metadata,
    }),
  },
  'payments.saved_payment_initiation_related_payment': {
    description: "A payment initiation's sending or reversal produced a payment at the provider.",
    payload: v.strictObject({ paymentInitiationID: text, paymentID: text }),
  },
  'webhooks.endpoint_disabled': {
    description:
      'A config was switched off: its endpoint failed every attempt for the configured period, or answered 410 Gone.',
    payload: endpointDisabledPayloadSchema,
  },
  'webhooks.endpoint_recovered': {
    description: 'A config switched off by its failures, activated again, delivered.',
    payload: endpointRecoveredPayloadSchema,
  },
};
