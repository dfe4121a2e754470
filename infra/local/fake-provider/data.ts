/**
 * The fake provider's book: accounts with balances, beneficiaries (external accounts) and transactions, in the
 * generic connector API's shapes. Amounts are integer strings in minor units of the asset (`EUR/2`).
 */
export interface FakeAccount {
  id: string;
  accountName: string;
  createdAt: string;
  metadata: Record<string, string>;
}

export interface FakeBeneficiary {
  id: string;
  ownerName: string;
  createdAt: string;
  metadata: Record<string, string>;
}

export interface FakeTransaction {
  id: string;
  createdAt: string;
  updatedAt: string;
  currency: string;
  type: 'PAYIN' | 'PAYOUT' | 'TRANSFER';
  status: 'SUCCEEDED' | 'FAILED';
  amount: string;
  sourceAccountID?: string;
  destinationAccountID?: string;
  metadata: Record<string, string>;
}

export interface FakeBook {
  accounts: FakeAccount[];
  beneficiaries: FakeBeneficiary[];
  transactions: FakeTransaction[];
  /** Balances by account id, then asset: minor units. */
  balances: Record<string, Record<string, bigint>>;
  /** Transfers and payouts already made, by idempotency key: the transaction each made. */
  byIdempotencyKey: Record<string, FakeTransaction>;
  /** Bank accounts created through `POST /bank-accounts`, in creation order. */
  bankAccounts: Array<Record<string, unknown>>;
  sequence: number;
}

/** A small company's accounts at its bank: two accounts, one supplier, a customer's payment received. */
export function demoBook(at: string): FakeBook {
  const meta = { demo: 'true' };
  return {
    accounts: [
      { id: 'acc-main', accountName: 'Main account', createdAt: at, metadata: meta },
      { id: 'acc-savings', accountName: 'Savings', createdAt: at, metadata: meta },
    ],
    beneficiaries: [
      { id: 'ben-supplier', ownerName: 'Acme Supplies', createdAt: at, metadata: meta },
    ],
    transactions: [
      {
        id: 'tx-0001',
        createdAt: at,
        updatedAt: at,
        currency: 'EUR/2',
        type: 'PAYIN',
        status: 'SUCCEEDED',
        amount: '250000',
        destinationAccountID: 'acc-main',
        metadata: { customer: 'Globex' },
      },
    ],
    balances: { 'acc-main': { 'EUR/2': 1_000_000n }, 'acc-savings': { 'EUR/2': 500_000n } },
    byIdempotencyKey: {},
    bankAccounts: [],
    sequence: 1,
  };
}
