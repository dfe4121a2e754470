import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import type { InitiationRequest, ProviderPayment } from '../connectors/provider.js';
import { clientOf, type RunnerDeps, savePayment } from '../connectors/runner.js';
import type { Task } from '../domain/connectors/tasks.js';
import { paymentId } from '../domain/payment.js';
import {
  answered,
  checkReversal,
  type InitiationInput,
  type InitiationReversal,
  type InitiationStatus,
  initiationStatus,
  isPaymentInitiationId,
  isScheduledAfter,
  newInitiation,
  type PaymentInitiation,
  requireFailed,
  requireWaiting,
  reversalId,
  statusOfPayment,
  withAdjustment,
} from '../domain/payment-initiation.js';
import type { PaymentsStores } from '../store/stores.js';
import { nowText } from './clock.js';
import { finishTask, requireConnector, startTask } from './connectors.js';

export const initiationNotFound = (id: string) =>
  new NotFoundError(`payment initiation ${id.slice(0, 400)} not found`);

/** The initiation a path names, or 404 (also for an id that cannot be an initiation's). */
export async function requireInitiation(
  stores: PaymentsStores,
  id: string,
): Promise<PaymentInitiation> {
  const pi = isPaymentInitiationId(id) ? await stores.initiations.get(id) : undefined;
  if (!pi) throw initiationNotFound(id);
  return pi;
}

/** An account an initiation names: it must exist and be one of its connector's (400 otherwise). */
async function requireAccount(
  stores: PaymentsStores,
  field: string,
  id: string,
  connectorID: string,
): Promise<void> {
  const account = await stores.accounts.get(id);
  if (!account || account.connectorID !== connectorID)
    throw new ValidationError(`${field}: account ${id.slice(0, 256)} not found on this connector`);
}

/**
 * Creates an initiation, waiting for validation; with `noValidation` it is sent at once (the reference's
 * `noValidation=true`). Its connector must exist and its accounts be that connector's.
 */
export async function createInitiation(
  stores: PaymentsStores,
  input: InitiationInput,
  noValidation: boolean,
  deps: RunnerDeps,
): Promise<{ initiation: PaymentInitiation; task?: Task }> {
  await requireConnector(stores, input.connectorID);
  if (input.sourceAccountID !== undefined)
    await requireAccount(stores, 'sourceAccountID', input.sourceAccountID, input.connectorID);
  await requireAccount(
    stores,
    'destinationAccountID',
    input.destinationAccountID,
    input.connectorID,
  );
  const pi = newInitiation(input, nowText(stores));
  await stores.initiations.save(pi.id, (current) => {
    if (current)
      throw new ConflictError(
        `payment initiation ${pi.id} already exists (reference ${input.reference} on this connector)`,
      );
    return pi;
  });
  if (!noValidation) return { initiation: pi };
  const task = await sendInitiation(stores, pi.id, deps);
  return { initiation: (await stores.initiations.get(pi.id))!, task };
}

/** Approves an initiation waiting for validation: it is sent (or scheduled) now. */
export async function approveInitiation(
  stores: PaymentsStores,
  id: string,
  deps: RunnerDeps,
): Promise<Task> {
  requireWaiting(await requireInitiation(stores, id), 'approve');
  return sendInitiation(stores, id, deps);
}

/** Sends a failed initiation again. */
export async function retryInitiation(
  stores: PaymentsStores,
  id: string,
  deps: RunnerDeps,
): Promise<Task> {
  requireFailed(await requireInitiation(stores, id));
  return sendInitiation(stores, id, deps);
}

export async function rejectInitiation(stores: PaymentsStores, id: string): Promise<void> {
  await requireInitiation(stores, id);
  const at = nowText(stores);
  await stores.initiations.save(id, (current) => {
    if (!current) throw initiationNotFound(id);
    requireWaiting(current, 'reject');
    return withAdjustment(current, { createdAt: at, status: 'REJECTED' });
  });
}

export async function deleteInitiation(stores: PaymentsStores, id: string): Promise<void> {
  await requireInitiation(stores, id);
  await stores.initiations.remove(id, (current) => requireWaiting(current, 'delete'));
}

/** Records one step of an initiation (a conditional write; a concurrent change is read and decided again). */
export function step(
  stores: PaymentsStores,
  id: string,
  change: (pi: PaymentInitiation) => PaymentInitiation,
): Promise<PaymentInitiation> {
  return stores.initiations.save(id, (current) => {
    if (!current) throw initiationNotFound(id);
    return change(current);
  });
}

/** What the provider is asked for: the initiation with its accounts' provider references. */
export async function requestOf(
  stores: PaymentsStores,
  pi: PaymentInitiation,
): Promise<InitiationRequest> {
  const reference = async (id: string | undefined) =>
    id === undefined ? undefined : (await stores.accounts.get(id))?.reference;
  const [source, destination] = await Promise.all([
    reference(pi.sourceAccountID),
    reference(pi.destinationAccountID),
  ]);
  return {
    type: pi.type,
    reference: pi.reference,
    createdAt: pi.createdAt,
    description: pi.description,
    amount: pi.amount,
    asset: pi.asset,
    ...(source !== undefined ? { sourceAccountReference: source } : {}),
    ...(destination !== undefined ? { destinationAccountReference: destination } : {}),
    metadata: pi.metadata,
  };
}

/**
 * Sends an initiation through its connector, as the reference's transfer and payout workflows do: scheduled for
 * later (SCHEDULED_FOR_PROCESSING, sent by the timer when due), or PROCESSING, then the provider's payment is
 * saved and related, and the initiation takes the payment's status (PROCESSED, FAILED...); a provider error is a
 * FAILED adjustment carrying it, which `retry` may send again. The task tells how it went.
 */
export async function sendInitiation(
  stores: PaymentsStores,
  id: string,
  deps: RunnerDeps,
): Promise<Task> {
  const pi = await requireInitiation(stores, id);
  await requireConnector(stores, pi.connectorID);
  const task = await startTask(stores, pi.connectorID);
  const at = nowText(stores);
  if (isScheduledAfter(pi, at)) {
    await step(stores, id, (current) => ({
      ...withAdjustment(requireSendable(current, SENDABLE), {
        createdAt: at,
        status: 'SCHEDULED_FOR_PROCESSING',
        amount: current.amount,
        asset: current.asset,
        metadata: { scheduledAt: current.scheduledAt },
      }),
      taskID: task.id,
    }));
    return task;
  }
  return processInitiation(stores, id, task, deps, SENDABLE);
}

/** What an approve or retry finds (checked again at the write: two at once send it once). */
const SENDABLE: readonly InitiationStatus[] = ['WAITING_FOR_VALIDATION', 'FAILED'];
/** What the timer finds when a scheduled initiation is due. */
export const DUE: readonly InitiationStatus[] = ['SCHEDULED_FOR_PROCESSING'];

function requireSendable(
  pi: PaymentInitiation,
  from: readonly InitiationStatus[],
): PaymentInitiation {
  if (!from.includes(initiationStatus(pi)))
    throw new ConflictError(`payment initiation ${pi.id} is already being sent`);
  return pi;
}

/** Sends a due initiation now (also a scheduled one whose time has come: the timer calls this). */
export async function processInitiation(
  stores: PaymentsStores,
  id: string,
  task: Task,
  deps: RunnerDeps,
  from: readonly InitiationStatus[],
): Promise<Task> {
  // Its connector first: an uninstalled one leaves the initiation as it was (a 404), never PROCESSING.
  const connector = await requireConnector(
    stores,
    (await requireInitiation(stores, id)).connectorID,
  );
  const at = nowText(stores);
  const processing = await step(stores, id, (current) => ({
    ...withAdjustment(requireSendable(current, from), {
      createdAt: at,
      status: 'PROCESSING',
      amount: current.amount,
      asset: current.asset,
    }),
    taskID: task.id,
    sendingSince: at,
  }));
  let payment: ProviderPayment;
  try {
    payment = await clientOf(connector, deps).initiate(await requestOf(stores, processing));
  } catch (err) {
    await failed(stores, id, 'FAILED', err);
    return finishTask(stores, task, err);
  }
  await relate(stores, processing, payment, statusOfPayment(payment.status));
  return finishTask(stores, task);
}

export async function failed(
  stores: PaymentsStores,
  id: string,
  status: InitiationStatus,
  err: unknown,
): Promise<void> {
  const error = err instanceof Error ? err.message : String(err);
  await step(stores, id, (current) =>
    withAdjustment(answered(current), {
      createdAt: nowText(stores),
      status,
      amount: current.amount,
      asset: current.asset,
      error,
    }),
  );
}

/** Saves the provider's payment, relates it to the initiation and records the status it gives. */
export async function relate(
  stores: PaymentsStores,
  pi: PaymentInitiation,
  payment: ProviderPayment,
  status: InitiationStatus,
): Promise<void> {
  await savePayment(stores, pi.connectorID, payment);
  const related = paymentId(pi.connectorID, payment.reference, payment.type);
  await step(stores, pi.id, (current) => ({
    ...withAdjustment(answered(current), {
      createdAt: nowText(stores),
      status,
      amount: payment.amount,
      asset: payment.asset,
    }),
    relatedPayments: current.relatedPayments.some((r) => r.paymentID === related)
      ? current.relatedPayments
      : [...current.relatedPayments, { paymentID: related, createdAt: payment.createdAt }],
  }));
}

/** A reversal as asked: its id, the reversal checked against the initiation. */
export interface ReversalInput {
  reference: string;
  description: string;
  amount: bigint;
  asset: string;
  metadata: Record<string, string>;
}

/**
 * Reverses (part of) a processed initiation, as the reference does: REVERSE_PROCESSING (one reversal at a time,
 * never more than is left), then the provider's reversing payment is related and gives the status (REVERSED), or
 * its error is a REVERSE_FAILED adjustment.
 */
export async function reverseInitiation(
  stores: PaymentsStores,
  id: string,
  input: ReversalInput,
  deps: RunnerDeps,
): Promise<{ reversal: InitiationReversal; task: Task }> {
  const pi = await requireInitiation(stores, id);
  const connector = await requireConnector(stores, pi.connectorID);
  const at = nowText(stores);
  const reversal: InitiationReversal = {
    ...input,
    id: reversalId(pi, input.reference),
    createdAt: at,
  };
  await step(stores, id, (current) => {
    checkReversal(current, reversal);
    return {
      ...withAdjustment(current, {
        createdAt: at,
        status: 'REVERSE_PROCESSING',
        amount: reversal.amount,
        asset: reversal.asset,
        metadata: reversal.metadata,
      }),
      reversals: [...current.reversals, reversal],
      sendingSince: at,
    };
  });
  const task = await startTask(stores, pi.connectorID);
  let payment: ProviderPayment;
  try {
    const initiation = await requestOf(stores, pi);
    payment = await clientOf(connector, deps).reverse({ ...reversal, initiation });
  } catch (err) {
    await failed(stores, id, 'REVERSE_FAILED', err);
    return { reversal, task: await finishTask(stores, task, err) };
  }
  await relate(stores, pi, payment, statusOfPayment(payment.status));
  return { reversal, task: await finishTask(stores, task) };
}
