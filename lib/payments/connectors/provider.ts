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

/** A payment initiation as a provider is asked to carry it out (accounts by their provider references). */
export interface InitiationRequest {
  type: 'TRANSFER' | 'PAYOUT';
  /** The initiation's reference: the provider's idempotency key. */
  reference: string;
  createdAt: string;
  description: string;
  amount: bigint;
  asset: string;
  sourceAccountReference?: string;
  destinationAccountReference?: string;
  metadata: Record<string, string>;
}

/** A reversal of (part of) a processed initiation. */
export interface ReversalRequest {
  reference: string;
  createdAt: string;
  description: string;
  amount: bigint;
  asset: string;
  metadata: Record<string, string>;
  initiation: InitiationRequest;
}

/** A bank account as a provider is asked to create it (to pay out to it later). */
export interface BankAccountRequest {
  /** The platform's bank account id. */
  id: string;
  createdAt: string;
  name: string;
  accountNumber?: string;
  iban?: string;
  swiftBicCode?: string;
  country?: string;
  metadata: Record<string, string>;
}

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
  /** Creates a transfer or payout: the payment the provider made for it. */
  initiate(request: InitiationRequest): Promise<ProviderPayment>;
  /** Reverses (part of) one: the reversing payment. */
  reverse(request: ReversalRequest): Promise<ProviderPayment>;
  /** Creates a bank account at the provider: the provider's (external) account for it. */
  createBankAccount(request: BankAccountRequest): Promise<ProviderAccount>;
  /** Users and bank links at the provider (open banking): absent when its API has none. */
  openBanking?: OpenBankingProvider;
}

/** What the callback of a link attempt concluded: a connection, or why the user has none. */
export type LinkOutcome = { connectionID: string } | { error: string };

/** A provider's open-banking API: it knows payment service users, and links them to their banks. */
export interface OpenBankingProvider {
  /** Registers a payment service user: the provider's id for them. */
  createUser(user: { id: string; name: string }): Promise<{ pspUserID: string }>;
  /**
   * The link a user follows to grant access to their bank. It ends at `callbackURL` (which the provider may extend
   * with its own query); `connectionID` renews an existing connection.
   */
  createLink(request: {
    attemptID: string;
    pspUserID: string;
    callbackURL: string;
    connectionID?: string;
  }): Promise<{ link: string }>;
  /** Reads the query the provider brought back to the callback. */
  completeLink(query: Record<string, string>): Promise<LinkOutcome>;
  deleteConnection(pspUserID: string, connectionID: string): Promise<void>;
  deleteUser(pspUserID: string): Promise<void>;
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
