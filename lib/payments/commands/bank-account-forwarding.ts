import { ConflictError, NotFoundError } from '../../errors/index.js';
import { clientOf, type RunnerDeps } from '../connectors/runner.js';
import { accountId, recordAccount } from '../domain/account.js';
import type { BankAccount } from '../domain/bank-account.js';
import type { Task } from '../domain/connectors/tasks.js';
import type { PaymentsStores } from '../store/stores.js';
import { nowText } from './clock.js';
import { finishTask, requireConnector, startTask } from './connectors.js';

export const bankAccountNotFound = (id: string) =>
  new NotFoundError(`bank account ${id} not found`);

/**
 * Forwards a bank account to a connector, as the reference's "create bank account" task does: the provider creates
 * it, its answer is saved as an external account of the connector, and the bank account lists that account in
 * `relatedAccounts`. Runs within the request (like a payment initiation's sending); the task says how it went, a
 * provider's refusal included. A bank account is forwarded to a connector once (409 after): a second forward would
 * create a second account for the same payee at the provider. With `userId`, the bank account must be that
 * payment service user's (404 otherwise).
 */
export async function forwardBankAccount(
  stores: PaymentsStores,
  bankAccountId: string,
  connectorID: string,
  deps: RunnerDeps,
  userId?: string,
): Promise<Task> {
  if (userId !== undefined && !(await stores.users.get(userId)))
    throw new NotFoundError(`payment service user ${userId} not found`);
  const bankAccount = await stores.bankAccounts.get(bankAccountId);
  if (!bankAccount || (userId !== undefined && bankAccount.psuID !== userId))
    throw bankAccountNotFound(bankAccountId);
  const connector = await requireConnector(stores, connectorID);
  requireNotForwarded(bankAccount, connectorID);
  const task = await startTask(stores, connectorID);
  try {
    const created = await clientOf(connector, deps).createBankAccount({
      id: bankAccount.id,
      createdAt: bankAccount.createdAt,
      name: bankAccount.name,
      ...numbersOf(bankAccount),
      metadata: bankAccount.metadata,
    });
    const id = accountId(connectorID, created.reference);
    await stores.accounts.save(id, (current) =>
      recordAccount(current, { ...created, connectorID, type: 'EXTERNAL' }),
    );
    const related = { accountID: id, connectorID, createdAt: nowText(stores) };
    await stores.bankAccounts.save(bankAccountId, (current) => {
      if (!current) throw bankAccountNotFound(bankAccountId);
      if (current.relatedAccounts.some((r) => r.connectorID === connectorID)) return current;
      return { ...current, relatedAccounts: [...current.relatedAccounts, related] };
    });
  } catch (err) {
    if (err instanceof NotFoundError) throw err;
    return finishTask(stores, task, err);
  }
  return finishTask(stores, task);
}

function requireNotForwarded(bankAccount: BankAccount, connectorID: string): void {
  const done = bankAccount.relatedAccounts.find((r) => r.connectorID === connectorID);
  if (done)
    throw new ConflictError(
      `bank account ${bankAccount.id} was already forwarded to connector ${connectorID} (account ${done.accountID})`,
    );
}

function numbersOf(b: BankAccount) {
  return {
    ...(b.accountNumber !== undefined ? { accountNumber: b.accountNumber } : {}),
    ...(b.iban !== undefined ? { iban: b.iban } : {}),
    ...(b.swiftBicCode !== undefined ? { swiftBicCode: b.swiftBicCode } : {}),
    ...(b.country !== undefined ? { country: b.country } : {}),
  };
}
