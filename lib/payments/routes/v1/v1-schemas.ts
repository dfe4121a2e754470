import * as v from 'valibot';
import { bigInteger, cursorOf, dataOf, dateTime, metadataView } from '../../../openapi/schemas.js';
import { ACCOUNT_TYPES } from '../../domain/account.js';
import { PAYMENT_TYPES } from '../../domain/payment.js';
import { INITIATION_TYPES } from '../../domain/payment-initiation.js';
import { POOL_TYPES } from '../../domain/pool.js';
import { V1_PAYMENT_STATUSES, V1_SCHEMES } from '../../domain/v1/v1-vocabulary.js';

/** The v1 API's response shapes (the SDK's `sdk.payments.v1`), for the OpenAPI document. */

const rawObject = v.nullable(v.record(v.string(), v.unknown()));
const paymentStatus = v.picklist(V1_PAYMENT_STATUSES);
const V1_INITIATION_STATUSES = [
  'WAITING_FOR_VALIDATION',
  'PROCESSING',
  'PROCESSED',
  'FAILED',
  'REJECTED',
  'VALIDATED',
  'ASK_RETRIED',
  'ASK_REVERSED',
  'REVERSE_PROCESSING',
  'REVERSE_FAILED',
  'PARTIALLY_REVERSED',
  'REVERSED',
] as const;
const initiationStatus = v.picklist(V1_INITIATION_STATUSES);

const paymentV1 = v.strictObject({
  id: v.string(),
  reference: v.string(),
  type: v.picklist(PAYMENT_TYPES),
  provider: v.optional(v.string()),
  connectorID: v.string(),
  status: paymentStatus,
  amount: bigInteger,
  initialAmount: bigInteger,
  scheme: v.picklist(V1_SCHEMES),
  asset: v.string(),
  createdAt: dateTime,
  sourceAccountID: v.string(),
  destinationAccountID: v.string(),
  metadata: metadataView,
  raw: rawObject,
  adjustments: v.array(
    v.strictObject({
      reference: v.string(),
      createdAt: dateTime,
      status: paymentStatus,
      amount: bigInteger,
      raw: v.record(v.string(), v.unknown()),
    }),
  ),
});

const accountV1 = v.strictObject({
  id: v.string(),
  reference: v.string(),
  createdAt: dateTime,
  connectorID: v.string(),
  provider: v.string(),
  defaultAsset: v.string(),
  defaultCurrency: v.string(),
  accountName: v.string(),
  type: v.picklist(ACCOUNT_TYPES),
  metadata: metadataView,
  raw: rawObject,
});

const balanceV1 = v.strictObject({
  accountId: v.string(),
  asset: v.string(),
  currency: v.string(),
  balance: bigInteger,
  createdAt: dateTime,
  lastUpdatedAt: dateTime,
});

const bankAccountV1 = v.strictObject({
  id: v.string(),
  name: v.string(),
  createdAt: dateTime,
  country: v.string(),
  accountNumber: v.optional(v.string()),
  iban: v.optional(v.string()),
  swiftBicCode: v.optional(v.string()),
  metadata: metadataView,
  relatedAccounts: v.array(
    v.strictObject({
      id: v.string(),
      createdAt: dateTime,
      accountID: v.string(),
      connectorID: v.string(),
      provider: v.string(),
    }),
  ),
});

const poolV1 = v.strictObject({
  id: v.string(),
  name: v.string(),
  type: v.picklist(POOL_TYPES),
  accounts: v.array(v.string()),
  query: v.optional(v.record(v.string(), v.unknown())),
});

const poolBalanceV1 = v.strictObject({
  amount: bigInteger,
  asset: v.string(),
  relatedAccounts: v.array(v.string()),
});

const taskV1 = v.strictObject({
  id: v.string(),
  connectorID: v.string(),
  createdAt: dateTime,
  updatedAt: dateTime,
  descriptor: v.strictObject({ name: v.string(), key: v.string() }),
  status: v.picklist(['ACTIVE', 'STOPPED']),
  state: v.record(v.string(), v.unknown()),
});

const transferInitiationV1 = v.strictObject({
  id: v.string(),
  reference: v.string(),
  createdAt: dateTime,
  scheduledAt: v.string(),
  description: v.string(),
  sourceAccountID: v.string(),
  destinationAccountID: v.string(),
  connectorID: v.string(),
  provider: v.string(),
  type: v.picklist(INITIATION_TYPES),
  amount: bigInteger,
  initialAmount: bigInteger,
  asset: v.string(),
  status: initiationStatus,
  error: v.string(),
  metadata: metadataView,
});

const transferInitiationV1Detail = v.strictObject({
  ...transferInitiationV1.entries,
  relatedPayments: v.array(
    v.strictObject({ paymentID: v.string(), createdAt: dateTime, status: paymentStatus }),
  ),
  relatedAdjustments: v.array(
    v.strictObject({
      adjustmentID: v.string(),
      createdAt: dateTime,
      status: initiationStatus,
      error: v.string(),
      metadata: metadataView,
    }),
  ),
});

export const paymentsV1Schemas = {
  PaymentV1: paymentV1,
  PaymentsAccountV1: accountV1,
  AccountBalanceV1: balanceV1,
  BankAccountV1: bankAccountV1,
  PoolV1: poolV1,
  ConnectorTaskV1: taskV1,
  TransferInitiationV1: transferInitiationV1,
};

export const paymentV1Data = dataOf(paymentV1);
export const paymentV1Page = cursorOf(paymentV1);
export const accountV1Data = dataOf(accountV1);
export const accountV1Page = cursorOf(accountV1);
export const balanceV1Page = cursorOf(balanceV1);
export const bankAccountV1Data = dataOf(bankAccountV1);
export const bankAccountV1Page = cursorOf(bankAccountV1);
export const poolV1Data = dataOf(poolV1);
export const poolV1Page = cursorOf(poolV1);
export const poolBalancesAtV1 = dataOf(v.strictObject({ balances: v.array(poolBalanceV1) }));
export const poolBalancesLatestV1 = dataOf(v.array(poolBalanceV1));
export const taskV1Data = dataOf(taskV1);
export const taskV1Page = cursorOf(taskV1);
export const transferInitiationV1Data = dataOf(transferInitiationV1);
export const transferInitiationV1DetailData = dataOf(transferInitiationV1Detail);
export const transferInitiationV1Page = cursorOf(transferInitiationV1);
export const connectorIdV1Data = dataOf(v.strictObject({ connectorID: v.string() }));
export const connectorsV1Data = dataOf(
  v.array(
    v.strictObject({
      provider: v.string(),
      connectorID: v.string(),
      name: v.string(),
      enabled: v.boolean(),
    }),
  ),
);
export const configV1Data = dataOf(v.record(v.string(), v.unknown()));
export const transferV1Created = v.strictObject({ id: v.string() });
