import type { Account } from '../account.js';
import type { AggregatedBalance, Balance } from '../balance.js';
import type { BankAccount } from '../bank-account.js';
import { hashedId } from '../ids.js';
import { type Payment, providerOf } from '../payment.js';
import type { Pool } from '../pool.js';
import { v1PaymentStatus, v1ProviderOf, v1Scheme } from './v1-vocabulary.js';

/** The v3 records in the v1 shapes the official SDK reads (`sdk.payments.v1`). */

/** `provider` only where v1's closed enum has a name for it (a free-text connector id has none). */
const providerField = (connectorID: string) => {
  const provider = v1ProviderOf(providerOf(connectorID));
  return provider ? { provider } : {};
};

export function paymentV1View(p: Payment): Record<string, unknown> {
  return {
    id: p.id,
    reference: p.reference,
    type: p.type,
    ...providerField(p.connectorID),
    connectorID: p.connectorID,
    status: v1PaymentStatus(p.status),
    amount: p.amount,
    initialAmount: p.initialAmount,
    scheme: v1Scheme(p.scheme),
    asset: p.asset,
    createdAt: p.createdAt,
    // v1 names both accounts always: an absent one is the empty string, as the reference answers.
    sourceAccountID: p.sourceAccountID ?? '',
    destinationAccountID: p.destinationAccountID ?? '',
    metadata: p.metadata,
    raw: null,
    adjustments: (p.adjustments ?? []).map((a) => ({
      reference: a.reference,
      createdAt: a.createdAt,
      status: v1PaymentStatus(a.status),
      amount: a.amount ?? 0n,
      raw: a.raw,
    })),
  };
}

export function accountV1View(a: Account): Record<string, unknown> {
  return {
    id: a.id,
    reference: a.reference,
    createdAt: a.createdAt,
    connectorID: a.connectorID,
    provider: v1ProviderOf(providerOf(a.connectorID)) ?? providerOf(a.connectorID),
    defaultAsset: a.defaultAsset ?? '',
    defaultCurrency: a.defaultAsset ?? '',
    accountName: a.name ?? '',
    type: a.type,
    metadata: a.metadata,
    raw: a.raw,
  };
}

export const balanceV1View = (b: Balance) => ({
  accountId: b.accountID,
  asset: b.asset,
  currency: b.asset,
  balance: b.balance,
  createdAt: b.createdAt,
  lastUpdatedAt: b.lastUpdatedAt,
});

/** The link between a bank account and a provider-side account: v1 gives it an id of its own. */
const relatedAccountId = (bankAccountID: string, accountID: string) =>
  hashedId('bank-account-related.v1', [bankAccountID, accountID]);

/** A bank account in v1: numbers shown only when `withNumbers` (a read by id), as in v3. */
export function bankAccountV1View(b: BankAccount, withNumbers: boolean): Record<string, unknown> {
  return {
    id: b.id,
    name: b.name,
    createdAt: b.createdAt,
    country: b.country ?? '',
    ...(withNumbers && b.accountNumber !== undefined ? { accountNumber: b.accountNumber } : {}),
    ...(withNumbers && b.iban !== undefined ? { iban: b.iban } : {}),
    ...(withNumbers && b.swiftBicCode !== undefined ? { swiftBicCode: b.swiftBicCode } : {}),
    metadata: b.metadata,
    relatedAccounts: b.relatedAccounts.map((r) => ({
      id: relatedAccountId(b.id, r.accountID),
      createdAt: r.createdAt,
      accountID: r.accountID,
      connectorID: r.connectorID,
      provider: v1ProviderOf(providerOf(r.connectorID)) ?? providerOf(r.connectorID),
    })),
  };
}

/** A pool in v1: its accounts (resolved for a dynamic pool) under `accounts`. */
export function poolV1View(pool: Pool, accounts: readonly string[]): Record<string, unknown> {
  return {
    id: pool.id,
    name: pool.name,
    type: pool.type,
    accounts: [...accounts],
    ...(pool.query !== undefined ? { query: pool.query } : {}),
  };
}

export const poolBalanceV1View = (b: AggregatedBalance) => ({
  amount: b.amount,
  asset: b.asset,
  relatedAccounts: b.relatedAccounts,
});
