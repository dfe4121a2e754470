import type { AccountType } from '../domain/account.js';
import type { PaymentInput } from '../domain/payment.js';

/** What a provider reports, already in the platform's terms (the connector id is added by the runner). */
export interface ProviderAccount {
  reference: string;
  createdAt: string;
  name?: string;
  defaultAsset?: string;
  metadata: Record<string, string>;
  raw: Record<string, unknown>;
}

export interface ProviderBalance {
  asset: string;
  balance: bigint;
  at: string;
}

export type ProviderPayment = Omit<PaymentInput, 'connectorID'> & {
  sourceAccountReference?: string;
  destinationAccountReference?: string;
};

/** One page of a fetch: what it brought, the cursor to resume from, whether more is waiting. */
export interface FetchPage<T> {
  items: T[];
  state: Record<string, unknown>;
  hasMore: boolean;
}

/** A provider's API as the tasks use it: every call may throw a `ProviderError`. */
export interface ProviderClient {
  fetchAccounts(
    state: Record<string, unknown>,
    pageSize: number,
  ): Promise<FetchPage<ProviderAccount>>;
  fetchExternalAccounts(
    state: Record<string, unknown>,
    pageSize: number,
  ): Promise<FetchPage<ProviderAccount>>;
  fetchBalances(accountReference: string): Promise<ProviderBalance[]>;
  fetchPayments(
    state: Record<string, unknown>,
    pageSize: number,
  ): Promise<FetchPage<ProviderPayment>>;
}

/** A provider answered with an error (or not at all): the run fails and the next one retries from its cursor. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export const ACCOUNT_TYPE_OF_TASK: Record<
  'FETCH_ACCOUNTS' | 'FETCH_EXTERNAL_ACCOUNTS',
  AccountType
> = {
  FETCH_ACCOUNTS: 'INTERNAL',
  FETCH_EXTERNAL_ACCOUNTS: 'EXTERNAL',
};
