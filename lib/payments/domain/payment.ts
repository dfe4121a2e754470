import { createHash } from 'node:crypto';
import type { PaymentScheme, PaymentStatus, PaymentType } from '../../../events/payments.js';
import { ConflictError, ValidationError } from '../../errors/index.js';
import { MAX_METADATA_KEYS } from '../../validation/common.js';
import {
  type AdjustmentInput,
  adjustmentView,
  mergeAdjustments,
  type PaymentAdjustment,
} from './adjustment.js';

// The vocabularies a Payment shares with its event's payload, defined by the event catalog (events/payments.ts),
// which no service may import back.
export {
  PAYMENT_SCHEMES,
  PAYMENT_STATUSES,
  PAYMENT_TYPES,
  type PaymentScheme,
  type PaymentStatus,
  type PaymentType,
} from '../../../events/payments.js';

export const DEFAULT_STATUS: PaymentStatus = 'PENDING';

/** The Payment record of docs/api.md §6: what the API answers and what `payments.saved_payment` carries. */
export interface Payment {
  id: string;
  connectorID: string;
  /** The payment service provider behind the connector: derived from connectorID (see `providerOf`). */
  provider: string;
  reference: string;
  /** RFC 3339, UTC, microseconds at most (normalised on input). */
  createdAt: string;
  type: PaymentType;
  status: PaymentStatus;
  scheme: PaymentScheme;
  asset: string;
  amount: bigint;
  initialAmount: bigint;
  sourceAccountID?: string;
  destinationAccountID?: string;
  metadata: Record<string, string>;
  /** Its history, newest first (absent when the provider reported none). */
  adjustments?: PaymentAdjustment[];
}

/** A validated POST body, `createdAt` already normalised. */
export interface PaymentInput {
  reference: string;
  connectorID: string;
  type: PaymentType;
  status?: PaymentStatus;
  amount: bigint;
  initialAmount?: bigint;
  asset: string;
  scheme: PaymentScheme;
  createdAt: string;
  sourceAccountID?: string;
  destinationAccountID?: string;
  metadata?: Record<string, string>;
  adjustments?: AdjustmentInput[];
}

/**
 * The provider a connector id names. The reference platform's connector ids are base64url (no padding) of the
 * JSON `{"Provider": ..., "Reference": <uuid>}`; such an id yields its Provider. This platform has no connector
 * registry, so any other connector id (free text such as `stripe-main`) is its own provider. The official SDK
 * requires the field on every payment.
 */
export function providerOf(connectorID: string): string {
  if (/^[A-Za-z0-9_-]+$/.test(connectorID)) {
    try {
      const decoded: unknown = JSON.parse(Buffer.from(connectorID, 'base64url').toString('utf8'));
      if (decoded !== null && typeof decoded === 'object' && !Array.isArray(decoded)) {
        const provider = (decoded as Record<string, unknown>).Provider;
        if (typeof provider === 'string' && provider !== '') return provider;
      }
    } catch {
      // Not a reference connector id: the id itself names the provider.
    }
  }
  return connectorID;
}

/**
 * The payment id: base64url (no padding) of SHA-256 over the JSON array `[connectorID, reference, type]`.
 * JSON string encoding is injective, so distinct triples never share a preimage; the prefix versions the scheme.
 */
export function paymentId(connectorID: string, reference: string, type: PaymentType): string {
  return createHash('sha256')
    .update(`payments.v1:${JSON.stringify([connectorID, reference, type])}`)
    .digest('base64url');
}

/** 32 bytes in base64url: 43 characters, the last one carrying 4 bits (so only 16 letters can end an id). */
const PAYMENT_ID = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** Whether a path parameter can be a payment id at all (if not, it is answered 404 without a read). */
export const isPaymentId = (raw: string): boolean => PAYMENT_ID.test(raw);

/**
 * Create or update from a POST body. A new payment takes status PENDING and initialAmount = amount unless
 * given. An existing one (same id, hence same connectorID, reference and type) may change status, amount,
 * scheme and the account ids; metadata is merged (keys in the request win). What describes the payment's
 * origin — createdAt, asset, initialAmount — cannot change: a different value is a 409 CONFLICT.
 * Fields absent from the request keep their stored value (status is not reset to PENDING).
 */
export function recordPayment(current: Payment | undefined, input: PaymentInput): Payment {
  const id = paymentId(input.connectorID, input.reference, input.type);
  if (!current) {
    const created: Payment = {
      id,
      connectorID: input.connectorID,
      provider: providerOf(input.connectorID),
      reference: input.reference,
      createdAt: input.createdAt,
      type: input.type,
      status: input.status ?? DEFAULT_STATUS,
      scheme: input.scheme,
      asset: input.asset,
      amount: input.amount,
      initialAmount: input.initialAmount ?? input.amount,
      metadata: { ...input.metadata },
    };
    if (input.sourceAccountID !== undefined) created.sourceAccountID = input.sourceAccountID;
    if (input.destinationAccountID !== undefined)
      created.destinationAccountID = input.destinationAccountID;
    return withAdjustments(created, input);
  }
  const immutable: Array<[keyof Payment, unknown]> = [
    ['createdAt', input.createdAt],
    ['asset', input.asset],
    ...(input.initialAmount !== undefined
      ? ([['initialAmount', input.initialAmount]] as Array<[keyof Payment, unknown]>)
      : []),
  ];
  for (const [field, value] of immutable) {
    if (current[field] !== value) {
      throw new ConflictError(
        `${field}: payment ${id} was recorded with ${field} ${String(current[field])}; it cannot change`,
      );
    }
  }
  const updated: Payment = {
    ...current,
    status: input.status ?? current.status,
    amount: input.amount,
    scheme: input.scheme,
    metadata: mergeMetadata(current.metadata, input.metadata ?? {}),
  };
  if (input.sourceAccountID !== undefined) updated.sourceAccountID = input.sourceAccountID;
  if (input.destinationAccountID !== undefined)
    updated.destinationAccountID = input.destinationAccountID;
  return withAdjustments(updated, input);
}

/**
 * The payment after the request's adjustments: merged into its history, and, unless the request gives a status,
 * in the status of its newest adjustment.
 */
function withAdjustments(payment: Payment, input: PaymentInput): Payment {
  const added = input.adjustments;
  if (!added || added.length === 0) return payment;
  const adjustments = mergeAdjustments(payment.id, payment.adjustments ?? [], added);
  return { ...payment, adjustments, status: input.status ?? adjustments[0]!.status };
}

/** PATCH metadata: the given keys are set, the others kept. */
export function withMetadata(current: Payment, metadata: Record<string, string>): Payment {
  return { ...current, metadata: mergeMetadata(current.metadata, metadata) };
}

function mergeMetadata(
  current: Record<string, string>,
  changes: Record<string, string>,
): Record<string, string> {
  const merged = { ...current, ...changes };
  if (Object.keys(merged).length > MAX_METADATA_KEYS) {
    throw new ValidationError(
      `metadata: the payment would have more than ${MAX_METADATA_KEYS} keys`,
    );
  }
  return merged;
}

/** Whether two records are the same: an update that changes nothing writes nothing and emits no event. */
export function samePayment(a: Payment, b: Payment): boolean {
  const fields: Array<keyof Payment> = [
    'id',
    'connectorID',
    'reference',
    'createdAt',
    'type',
    'status',
    'scheme',
    'asset',
    'amount',
    'initialAmount',
    'sourceAccountID',
    'destinationAccountID',
  ];
  if (fields.some((f) => a[f] !== b[f])) return false;
  const ids = (p: Payment) => (p.adjustments ?? []).map((x) => x.id).join(',');
  if (ids(a) !== ids(b)) return false;
  const keys = Object.keys(a.metadata);
  return (
    keys.length === Object.keys(b.metadata).length &&
    keys.every((k) => Object.hasOwn(b.metadata, k) && b.metadata[k] === a.metadata[k])
  );
}

/** The record in the contract's field order (absent account ids omitted). */
export function paymentView(p: Payment): Payment {
  return {
    id: p.id,
    connectorID: p.connectorID,
    provider: providerOf(p.connectorID),
    reference: p.reference,
    createdAt: p.createdAt,
    type: p.type,
    status: p.status,
    scheme: p.scheme,
    asset: p.asset,
    amount: p.amount,
    initialAmount: p.initialAmount,
    ...(p.sourceAccountID !== undefined ? { sourceAccountID: p.sourceAccountID } : {}),
    ...(p.destinationAccountID !== undefined
      ? { destinationAccountID: p.destinationAccountID }
      : {}),
    metadata: p.metadata,
    ...(p.adjustments && p.adjustments.length > 0
      ? { adjustments: p.adjustments.map(adjustmentView) }
      : {}),
  };
}
