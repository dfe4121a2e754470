import { ValidationError } from '../../errors/index.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { hashedId } from './ids.js';
import type { PaymentStatus } from './payment.js';

/**
 * One step of a payment's history as the provider reported it (the reference's adjustments): a status at a time,
 * with the amount it concerns. A payment keeps its adjustments newest first; the same adjustment reported again
 * (same reference, time and status) is recorded once.
 */
export interface PaymentAdjustment {
  id: string;
  reference: string;
  createdAt: string;
  status: PaymentStatus;
  amount?: bigint;
  asset?: string;
  metadata: Record<string, string>;
  /** The adjustment as received. */
  raw: Record<string, unknown>;
}

export type AdjustmentInput = Omit<PaymentAdjustment, 'id' | 'metadata'> & {
  metadata?: Record<string, string>;
};

/** A payment keeps at most this many adjustments (they live in its item). */
export const MAX_ADJUSTMENTS = 200;

export const adjustmentId = (
  paymentId: string,
  a: Pick<AdjustmentInput, 'reference' | 'createdAt' | 'status'>,
) => hashedId('adjustments.v1', [paymentId, a.reference, a.createdAt, a.status]);

/** The history after new adjustments: merged by id, newest first (ties by id, so the order is stable). */
export function mergeAdjustments(
  paymentId: string,
  current: readonly PaymentAdjustment[],
  added: readonly AdjustmentInput[],
): PaymentAdjustment[] {
  const byId = new Map(current.map((a) => [a.id, a]));
  for (const input of added) {
    const id = adjustmentId(paymentId, input);
    if (!byId.has(id)) byId.set(id, { ...input, id, metadata: { ...input.metadata } });
  }
  if (byId.size > MAX_ADJUSTMENTS)
    throw new ValidationError(
      `adjustments: a payment keeps at most ${MAX_ADJUSTMENTS} adjustments`,
    );
  return [...byId.values()].sort((a, b) => {
    const [ta, tb] = [sortable(a.createdAt), sortable(b.createdAt)];
    if (ta !== tb) return ta < tb ? 1 : -1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

const sortable = (createdAt: string) => sortableInstant(parseInstant(createdAt, 'createdAt'));

/** The adjustment in the contract's field order. */
export function adjustmentView(a: PaymentAdjustment): PaymentAdjustment {
  return {
    id: a.id,
    reference: a.reference,
    createdAt: a.createdAt,
    status: a.status,
    ...(a.amount !== undefined ? { amount: a.amount } : {}),
    ...(a.asset !== undefined ? { asset: a.asset } : {}),
    metadata: a.metadata,
    raw: a.raw,
  };
}
