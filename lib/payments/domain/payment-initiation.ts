import { ValidationError } from '../../errors/index.js';
import { formatInstant, instantFromMs, parseInstant, sortableInstant } from '../../time/instant.js';
import { parseConnectorId } from './connectors/connector.js';
import { hashedId } from './ids.js';
import { type PaymentStatus, providerOf } from './payment.js';

/**
 * Payment initiations (the reference's v3 transfers and payouts): a request to move money at a provider, approved
 * by a person, then sent through its connector. Its history is a list of adjustments, newest first; the newest
 * is its status. The rules here are the reference's state machine:
 *
 *   WAITING_FOR_VALIDATION ─approve→ (SCHEDULED_FOR_PROCESSING →) PROCESSING → PROCESSED | FAILED
 *   WAITING_FOR_VALIDATION ─reject→ REJECTED;  FAILED ─retry→ PROCESSING → …
 *   PROCESSED ─reverse→ REVERSE_PROCESSING → REVERSED | REVERSE_FAILED (a reversal never exceeds what is left)
 */

export const INITIATION_TYPES = ['TRANSFER', 'PAYOUT'] as const;
export type InitiationType = (typeof INITIATION_TYPES)[number];

export const INITIATION_STATUSES = [
  'UNKNOWN',
  'WAITING_FOR_VALIDATION',
  'SCHEDULED_FOR_PROCESSING',
  'PROCESSING',
  'PROCESSED',
  'FAILED',
  'REJECTED',
  'REVERSE_PROCESSING',
  'REVERSE_FAILED',
  'REVERSED',
] as const;
export type InitiationStatus = (typeof INITIATION_STATUSES)[number];

export interface InitiationAdjustment {
  id: string;
  createdAt: string;
  status: InitiationStatus;
  amount?: bigint;
  asset?: string;
  error?: string;
  metadata: Record<string, string>;
}

export interface RelatedPayment {
  paymentID: string;
  createdAt: string;
}

export interface InitiationReversal {
  id: string;
  reference: string;
  createdAt: string;
  description: string;
  amount: bigint;
  asset: string;
  metadata: Record<string, string>;
}

export interface PaymentInitiation {
  id: string;
  connectorID: string;
  reference: string;
  createdAt: string;
  scheduledAt: string;
  description: string;
  type: InitiationType;
  sourceAccountID?: string;
  destinationAccountID?: string;
  amount: bigint;
  asset: string;
  metadata: Record<string, string>;
  /** Newest first; never empty (the first is WAITING_FOR_VALIDATION). */
  adjustments: InitiationAdjustment[];
  /** The payments it produced at the provider, oldest first. */
  relatedPayments: RelatedPayment[];
  reversals: InitiationReversal[];
  /** The task of its latest sending (approve, retry, reverse), finished when the provider has answered. */
  taskID?: string;
  /**
   * Set while a sending (PROCESSING) or a reversal (REVERSE_PROCESSING) waits for the provider's answer: when it
   * began. A sender that died meanwhile leaves it set; once `SEND_LEASE_MS` has passed the timer sends again
   * (`redriveAt`), with the same idempotency key.
   */
  sendingSince?: string;
}

/**
 * How long a sending may wait for its provider before another may take it over: a request's longest life (a Lambda
 * runs 15 minutes at most; the provider client's own timeouts and retries end well before).
 */
export const SEND_LEASE_MS = 15 * 60_000;

/** When a sending still waiting for its provider may be sent again, if one is waiting. */
export function redriveAt(pi: Pick<PaymentInitiation, 'sendingSince'>): string | undefined {
  if (pi.sendingSince === undefined) return undefined;
  const since = parseInstant(pi.sendingSince, 'sendingSince');
  return formatInstant(instantFromMs(since.ms + SEND_LEASE_MS));
}

/** Whether a sending waiting for its provider is past its lease at `nowText`: its sender is presumed dead. */
export function isSendAbandoned(pi: PaymentInitiation, nowText: string): boolean {
  const at = redriveAt(pi);
  return at !== undefined && sortable(at) <= sortable(nowText);
}

/** The initiation once its provider answered (or its sending failed): no sending waits any more. */
export function answered(pi: PaymentInitiation): PaymentInitiation {
  const { sendingSince: _since, ...rest } = pi;
  return rest;
}

/** A validated create body. */
export interface InitiationInput {
  reference: string;
  connectorID: string;
  scheduledAt?: string;
  description: string;
  type: InitiationType;
  amount: bigint;
  asset: string;
  sourceAccountID?: string;
  destinationAccountID: string;
  metadata: Record<string, string>;
}

/** An initiation keeps at most this many adjustments (they live in its item). */
export const MAX_INITIATION_ADJUSTMENTS = 200;
/** The zero time the reference answers for an initiation without a schedule. */
export const NOT_SCHEDULED = '0001-01-01T00:00:00Z';

/**
 * The reference's id: base64url (no padding) of the canonical JSON of its connector (provider and reference) and
 * its own reference, so the same reference on one connector is one initiation.
 */
export function paymentInitiationId(connectorID: string, reference: string): string {
  const connector = parseConnectorId(connectorID);
  if (!connector) throw new ValidationError('connectorID: not a connector id');
  const json = `{"ConnectorID":{"Provider":${JSON.stringify(connector.provider)},"Reference":${JSON.stringify(connector.reference)}},"Reference":${JSON.stringify(reference)}}`;
  return Buffer.from(json).toString('base64url');
}

/** Whether a path id can name an initiation (its connector and reference decoded back to the same id). */
export function isPaymentInitiationId(raw: string): boolean {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(raw)) return false;
  try {
    const decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as {
      ConnectorID?: { Provider?: unknown; Reference?: unknown };
      Reference?: unknown;
    };
    const { Provider, Reference } = decoded.ConnectorID ?? {};
    if (typeof Provider !== 'string' || typeof Reference !== 'string') return false;
    if (typeof decoded.Reference !== 'string') return false;
    const connectorID = Buffer.from(JSON.stringify({ Provider, Reference })).toString('base64url');
    return paymentInitiationId(connectorID, decoded.Reference) === raw;
  } catch {
    return false;
  }
}

export const initiationStatus = (pi: PaymentInitiation): InitiationStatus =>
  pi.adjustments[0]!.status;

type AdjustmentChange = Omit<InitiationAdjustment, 'id' | 'metadata'> & {
  metadata?: Record<string, string>;
};

/** The initiation with one more adjustment (the newest): recorded once per (time, status). */
export function withAdjustment(pi: PaymentInitiation, change: AdjustmentChange): PaymentInitiation {
  const id = hashedId('pi-adjustments.v1', [pi.id, change.createdAt, change.status]);
  if (pi.adjustments.some((a) => a.id === id)) return pi;
  if (pi.adjustments.length >= MAX_INITIATION_ADJUSTMENTS)
    throw new ValidationError(
      `payment initiation ${pi.id}: it keeps at most ${MAX_INITIATION_ADJUSTMENTS} adjustments`,
    );
  const adjustment: InitiationAdjustment = { ...change, id, metadata: { ...change.metadata } };
  // Newest first; an adjustment at the same time as the newest goes first (it was decided after it).
  const adjustments = [adjustment, ...pi.adjustments].sort((a, b) =>
    sortable(b.createdAt) > sortable(a.createdAt)
      ? 1
      : sortable(b.createdAt) < sortable(a.createdAt)
        ? -1
        : 0,
  );
  return { ...pi, adjustments };
}

const sortable = (at: string) => sortableInstant(parseInstant(at, 'createdAt'));

/** A new initiation, waiting for validation. */
export function newInitiation(input: InitiationInput, createdAt: string): PaymentInitiation {
  const pi: PaymentInitiation = {
    id: paymentInitiationId(input.connectorID, input.reference),
    connectorID: input.connectorID,
    reference: input.reference,
    createdAt,
    scheduledAt: input.scheduledAt ?? NOT_SCHEDULED,
    description: input.description,
    type: input.type,
    ...(input.sourceAccountID !== undefined ? { sourceAccountID: input.sourceAccountID } : {}),
    destinationAccountID: input.destinationAccountID,
    amount: input.amount,
    asset: input.asset,
    metadata: { ...input.metadata },
    adjustments: [],
    relatedPayments: [],
    reversals: [],
  };
  return withAdjustment(pi, {
    createdAt,
    status: 'WAITING_FOR_VALIDATION',
    amount: input.amount,
    asset: input.asset,
  });
}

function requireStatus(pi: PaymentInitiation, allowed: InitiationStatus, action: string): void {
  const status = initiationStatus(pi);
  if (status !== allowed)
    throw new ValidationError(
      `payment initiation ${pi.id}: cannot ${action} it while it is ${status} (only when ${allowed})`,
    );
}

/** Approve, delete and reject need an initiation waiting for validation; retry a failed one. */
export const requireWaiting = (pi: PaymentInitiation, action: 'approve' | 'reject' | 'delete') =>
  requireStatus(pi, 'WAITING_FOR_VALIDATION', action);
export const requireFailed = (pi: PaymentInitiation) => requireStatus(pi, 'FAILED', 'retry');

/** Whether sending it now is early: it waits for `scheduledAt`. */
export const isScheduledAfter = (pi: PaymentInitiation, nowText: string): boolean =>
  pi.scheduledAt !== NOT_SCHEDULED && sortable(pi.scheduledAt) > sortable(nowText);

/** How much of it is left to reverse: its amount less every REVERSED adjustment's. */
export function reversibleAmount(pi: PaymentInitiation): bigint {
  const reversed = pi.adjustments
    .filter((a) => a.status === 'REVERSED')
    .reduce((sum, a) => sum + (a.amount ?? 0n), 0n);
  return pi.amount - reversed;
}

/** A reversal is allowed once processed, in its asset, within what is left, one at a time. */
export function checkReversal(pi: PaymentInitiation, reversal: InitiationReversal): void {
  if (!pi.adjustments.some((a) => a.status === 'PROCESSED'))
    throw new ValidationError(
      `payment initiation ${pi.id}: it is not processed, nothing to reverse`,
    );
  if (initiationStatus(pi) === 'REVERSE_PROCESSING')
    throw new ValidationError(`payment initiation ${pi.id}: another reversal is in progress`);
  if (reversal.asset !== pi.asset)
    throw new ValidationError(`body.asset: must be the initiation's asset ${pi.asset}`);
  if (reversal.amount > reversibleAmount(pi))
    throw new ValidationError(
      `body.amount: cannot reverse more than is left (${reversibleAmount(pi)})`,
    );
  if (pi.reversals.some((r) => r.id === reversal.id))
    throw new ValidationError(`body.reference: a reversal ${reversal.reference} already exists`);
}

export const reversalId = (pi: PaymentInitiation, reference: string): string =>
  hashedId('pi-reversals.v1', [pi.id, reference]);

/** The initiation's status for its payment's status (the reference's mapping; no status is PENDING). */
export function statusOfPayment(status: PaymentStatus | undefined): InitiationStatus {
  switch (status ?? 'PENDING') {
    case 'SUCCEEDED':
    case 'CAPTURE':
    case 'REFUND_REVERSED':
      return 'PROCESSED';
    case 'CANCELLED':
    case 'CAPTURE_FAILED':
    case 'FAILED':
    case 'EXPIRED':
      return 'FAILED';
    case 'PENDING':
    case 'AUTHORISATION':
      return 'PROCESSING';
    case 'REFUNDED':
      return 'REVERSED';
    case 'REFUNDED_FAILURE':
      return 'REVERSE_FAILED';
    default:
      return 'UNKNOWN';
  }
}

/** The initiation as the API answers it: its status and error are its newest adjustment's. */
export function initiationView(pi: PaymentInitiation): Record<string, unknown> {
  const last = pi.adjustments[0]!;
  return {
    id: pi.id,
    connectorID: pi.connectorID,
    provider: providerOf(pi.connectorID),
    reference: pi.reference,
    createdAt: pi.createdAt,
    scheduledAt: pi.scheduledAt,
    description: pi.description,
    type: pi.type,
    ...(pi.sourceAccountID !== undefined ? { sourceAccountID: pi.sourceAccountID } : {}),
    ...(pi.destinationAccountID !== undefined
      ? { destinationAccountID: pi.destinationAccountID }
      : {}),
    amount: pi.amount,
    asset: pi.asset,
    metadata: pi.metadata,
    status: last.status,
    ...(last.error !== undefined ? { error: last.error } : {}),
  };
}

export function adjustmentView(a: InitiationAdjustment): Record<string, unknown> {
  return {
    id: a.id,
    createdAt: a.createdAt,
    status: a.status,
    ...(a.amount !== undefined ? { amount: a.amount } : {}),
    ...(a.asset !== undefined ? { asset: a.asset } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
    metadata: a.metadata,
  };
}
