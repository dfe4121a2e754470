import * as v from 'valibot';

/**
 * The event catalog (docs/api.md §5). Every state change that others may care about writes one of these to the
 * events table in the same DynamoDB transaction as the change; the stream carries it to webhooks.
 * Payload schemas live beside this file, one per kind, with the service that emits it.
 */
export const EVENT_KINDS = [
  'ledger.committed_transactions',
  'ledger.saved_metadata',
  'ledger.deleted_metadata',
  'ledger.updated_mapping',
  'ledger.reverted_transaction',
  'ledger.balance_monitor_triggered',
  'ledger.created_pending',
  'ledger.posted_pending',
  'ledger.voided_pending',
  'payments.saved_payment',
  'payments.saved_account',
  'payments.saved_balance',
  'payments.saved_bank_account',
  'payments.saved_pool',
  'payments.deleted_pool',
  'payments.saved_payment_initiation',
  'payments.saved_payment_initiation_adjustment',
  'payments.saved_payment_initiation_related_payment',
  'webhooks.endpoint_disabled',
  'webhooks.endpoint_recovered',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export const isEventKind = (value: string): value is EventKind =>
  (EVENT_KINDS as readonly string[]).includes(value);

/** The services that emit events: the envelope's `app`. */
export const EVENT_APPS = ['ledger', 'payments', 'webhooks'] as const;
export type EventApp = (typeof EVENT_APPS)[number];

/** Which service emits each kind: the envelope's `app`. */
export const EVENT_APP: Record<EventKind, EventApp> = {
  'ledger.committed_transactions': 'ledger',
  'ledger.saved_metadata': 'ledger',
  'ledger.deleted_metadata': 'ledger',
  'ledger.updated_mapping': 'ledger',
  'ledger.reverted_transaction': 'ledger',
  'ledger.balance_monitor_triggered': 'ledger',
  'ledger.created_pending': 'ledger',
  'ledger.posted_pending': 'ledger',
  'ledger.voided_pending': 'ledger',
  'payments.saved_payment': 'payments',
  'payments.saved_account': 'payments',
  'payments.saved_balance': 'payments',
  'payments.saved_bank_account': 'payments',
  'payments.saved_pool': 'payments',
  'payments.deleted_pool': 'payments',
  'payments.saved_payment_initiation': 'payments',
  'payments.saved_payment_initiation_adjustment': 'payments',
  'payments.saved_payment_initiation_related_payment': 'payments',
  // Operator events: the webhooks service reports on its own endpoints, through the same pipeline.
  'webhooks.endpoint_disabled': 'webhooks',
  'webhooks.endpoint_recovered': 'webhooks',
};

/** Version of the envelope and payload shapes; bumped on any incompatible change. */
export const EVENT_VERSION = 'v2';

export const envelopeSchema = v.strictObject({
  id: v.pipe(v.string(), v.minLength(1)),
  idempotency_key: v.string(),
  date: v.pipe(v.string(), v.isoTimestamp()),
  app: v.picklist(EVENT_APPS),
  version: v.literal(EVENT_VERSION),
  type: v.picklist(EVENT_KINDS),
  payload: v.record(v.string(), v.unknown()),
});

export type EventEnvelope = v.InferOutput<typeof envelopeSchema>;
