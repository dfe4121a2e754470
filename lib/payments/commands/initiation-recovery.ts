import { ConflictError } from '../../errors/index.js';
import type { ProviderPayment } from '../connectors/provider.js';
import { clientOf, type RunnerDeps } from '../connectors/runner.js';
import type { Task } from '../domain/connectors/tasks.js';
import {
  initiationStatus,
  isSendAbandoned,
  type PaymentInitiation,
  statusOfPayment,
} from '../domain/payment-initiation.js';
import type { PaymentsStores } from '../store/stores.js';
import { nowText } from './clock.js';
import { finishTask, startTask } from './connectors.js';
import { failed, relate, requestOf, requireInitiation, step } from './payment-initiations.js';

/**
 * Takes over a sending whose sender died while the provider was asked (a crash, a timeout of its Lambda): past its
 * lease, the sending is claimed again (a conditional write, so one recovery at a time, and never while its sender
 * may still be alive) and sent once more with the same idempotency key (the initiation's or the reversal's
 * reference), so a provider that honours keys pays once. Its connector gone, it fails instead. Answers whether it
 * was taken over.
 */
export async function redriveInitiation(
  stores: PaymentsStores,
  id: string,
  deps: RunnerDeps,
): Promise<boolean> {
  const at = nowText(stores);
  const pi = await requireInitiation(stores, id);
  if (!isSendAbandoned(pi, at)) return false;
  let claimed: PaymentInitiation;
  try {
    claimed = await step(stores, id, (current) => {
      if (!isSendAbandoned(current, at))
        throw new ConflictError(`payment initiation ${id} is being sent`);
      return { ...current, sendingSince: at };
    });
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
  const reversing = initiationStatus(claimed) === 'REVERSE_PROCESSING';
  const task =
    (claimed.taskID ? await stores.tasks.get(claimed.taskID) : undefined) ??
    (await startTask(stores, claimed.connectorID));
  const connector = await stores.connectors.get(claimed.connectorID);
  const failure = reversing ? 'REVERSE_FAILED' : 'FAILED';
  if (!connector) {
    const gone = new Error(`connector ${claimed.connectorID} was uninstalled during the sending`);
    await failed(stores, id, failure, gone);
    await finishTask(stores, task, gone);
    return true;
  }
  await resend(stores, claimed, task, reversing, deps, connector);
  return true;
}

async function resend(
  stores: PaymentsStores,
  pi: PaymentInitiation,
  task: Task,
  reversing: boolean,
  deps: RunnerDeps,
  connector: Parameters<typeof clientOf>[0],
): Promise<void> {
  let payment: ProviderPayment;
  try {
    const client = clientOf(connector, deps);
    const request = await requestOf(stores, pi);
    const reversal = pi.reversals.at(-1);
    payment =
      reversing && reversal
        ? await client.reverse({ ...reversal, initiation: request })
        : await client.initiate(request);
  } catch (err) {
    await failed(stores, pi.id, reversing ? 'REVERSE_FAILED' : 'FAILED', err);
    await finishTask(stores, task, err);
    return;
  }
  await relate(stores, pi, payment, statusOfPayment(payment.status));
  await finishTask(stores, task);
}
