import { commitUnlessRaced } from '../../dynamo/optimistic.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { NotFoundError } from '../../errors/index.js';
import type { BankAccount } from '../domain/bank-account.js';
import {
  newPaymentServiceUser,
  type PaymentServiceUser,
  type PaymentServiceUserInput,
  withBankAccount,
} from '../domain/payment-service-user.js';
import type { Versioned } from '../store/record-store.js';
import type { PaymentsStores } from '../store/stores.js';

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
