import { commitUnlessRaced } from '../../dynamo/optimistic.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { NotFoundError } from '../../errors/index.js';
import type { BankAccount } from '../domain/bank-account.js';
import type { Task } from '../domain/connectors/tasks.js';
import { newRecordId } from '../domain/ids.js';
import {
  newPaymentServiceUser,
  type PaymentServiceUser,
  type PaymentServiceUserInput,
  withBankAccount,
} from '../domain/payment-service-user.js';
import type { Versioned } from '../store/record-store.js';
import type { PaymentsStores } from '../store/stores.js';
import { nowText } from './clock.js';

/**
 * A payment service user and the bank accounts it holds are written together: the user's list and each bank
 * account's owner change in one transaction, each conditional on the version read, so neither side can say
 * something the other does not.
 */

export async function createPaymentServiceUser(
  stores: PaymentsStores,
  id: string,
  createdAt: string,
  input: PaymentServiceUserInput,
): Promise<PaymentServiceUser> {
  return stores.users.retry<PaymentServiceUser>(async () => {
    let user = newPaymentServiceUser(id, createdAt, input);
    const linked = await readBankAccounts(stores, user.bankAccountIDs);
    const items: TransactItem[] = [];
    for (const current of linked) {
      user = withBankAccount(user, current.record.id, current.record.psuID);
      items.push(...stores.bankAccounts.putItems({ ...current.record, psuID: id }, current));
    }
    items.unshift(...stores.users.putItems(user, undefined));
    return (await commitUnlessRaced(stores.doc, items))
      ? { done: true, value: user }
      : { done: false };
  });
}

/** Links bank account `bankAccountId` to user `userId` (nothing to write when it already is). */
export async function addBankAccountToUser(
  stores: PaymentsStores,
  userId: string,
  bankAccountId: string,
): Promise<void> {
  await stores.users.retry<undefined>(async () => {
    const user = await stores.users.read(userId);
    if (!user) throw new NotFoundError(`payment service user ${userId} not found`);
    const [bankAccount] = await readBankAccounts(stores, [bankAccountId]);
    const next = withBankAccount(user.record, bankAccountId, bankAccount!.record.psuID);
    if (next === user.record && bankAccount!.record.psuID === userId)
      return { done: true, value: undefined };
    const items = [
      ...stores.users.putItems(next, user),
      ...stores.bankAccounts.putItems({ ...bankAccount!.record, psuID: userId }, bankAccount),
    ];
    return (await commitUnlessRaced(stores.doc, items))
      ? { done: true, value: undefined }
      : { done: false };
  });
}

async function readBankAccounts(
  stores: PaymentsStores,
  ids: readonly string[],
): Promise<Versioned<BankAccount>[]> {
  return Promise.all(
    ids.map(async (id) => {
      const found = await stores.bankAccounts.read(id);
      if (!found) throw new NotFoundError(`bank account ${id} not found`);
      return found;
    }),
  );
}

/**
 * Deletes a user as a task (the reference's shape): the user goes and its bank accounts are unlinked (kept: a
 * bank account may still be paid to), in one transaction.
 */
export async function deletePaymentServiceUser(
  stores: PaymentsStores,
  userId: string,
): Promise<Task> {
  if (!(await stores.users.get(userId)))
    throw new NotFoundError(`payment service user ${userId} not found`);
  const now = nowText(stores);
  const task: Task = {
    id: newRecordId(),
    connectorID: '',
    status: 'PROCESSING',
    createdAt: now,
    updatedAt: now,
  };
  await stores.tasks.save(task.id, () => task);
  await stores.users.retry<undefined>(async () => {
    const user = await stores.users.read(userId);
    if (!user) return { done: true, value: undefined };
    const linked = (
      await Promise.all(user.record.bankAccountIDs.map((id) => stores.bankAccounts.read(id)))
    ).filter((b): b is Versioned<BankAccount> => b !== undefined && b.record.psuID === userId);
    const items = [
      ...stores.users.deleteItems(user),
      ...linked.flatMap((b) => {
        const { psuID: _gone, ...rest } = b.record;
        return stores.bankAccounts.putItems(rest, b);
      }),
    ];
    return (await commitUnlessRaced(stores.doc, items))
      ? { done: true, value: undefined }
      : { done: false };
  });
  const done: Task = { ...task, status: 'SUCCEEDED', updatedAt: nowText(stores) };
  return stores.tasks.save(task.id, () => done);
}
