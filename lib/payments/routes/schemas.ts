import * as v from 'valibot';
import { bigInteger, cursorOf, dataOf, dateTime, metadataView } from '../../openapi/schemas.js';
import { ACCOUNT_TYPES } from '../domain/account.js';
import { TASK_STATUSES } from '../domain/connectors/tasks.js';
import { PAYMENT_SCHEMES, PAYMENT_STATUSES, PAYMENT_TYPES } from '../domain/payment.js';
import { INITIATION_STATUSES, INITIATION_TYPES } from '../domain/payment-initiation.js';
import { POOL_TYPES } from '../domain/pool.js';
import { paymentsV1Schemas } from './v1/v1-schemas.js';

/** The payments service's response shapes (docs/api.md §6), for its OpenAPI document and the tests against it. */

export const paymentSchema = v.strictObject({
  id: v.string(),
  connectorID: v.string(),
  provider: v.string(),
  reference: v.string(),
  createdAt: dateTime,
  type: v.picklist(PAYMENT_TYPES),
  status: v.picklist(PAYMENT_STATUSES),
  scheme: v.picklist(PAYMENT_SCHEMES),
  asset: v.string(),
  amount: bigInteger,
  initialAmount: bigInteger,
  sourceAccountID: v.optional(v.string()),
  destinationAccountID: v.optional(v.string()),
  metadata: metadataView,
});

export const accountSchema = v.strictObject({
  id: v.string(),
  connectorID: v.string(),
  provider: v.string(),
  reference: v.string(),
  createdAt: dateTime,
  type: v.picklist(ACCOUNT_TYPES),
  name: v.optional(v.string()),
  defaultAsset: v.optional(v.string()),
  metadata: metadataView,
  raw: v.record(v.string(), v.unknown()),
});

export const balanceSchema = v.strictObject({
  accountID: v.string(),
  asset: v.string(),
  balance: bigInteger,
  createdAt: dateTime,
  lastUpdatedAt: dateTime,
});

const relatedAccountSchema = v.strictObject({ accountID: v.string(), createdAt: dateTime });

export const bankAccountSchema = v.strictObject({
  id: v.string(),
  createdAt: dateTime,
  name: v.string(),
  accountNumber: v.optional(v.string()),
  iban: v.optional(v.string()),
  swiftBicCode: v.optional(v.string()),
  country: v.optional(v.string()),
  metadata: metadataView,
  relatedAccounts: v.array(relatedAccountSchema),
});

export const paymentServiceUserSchema = v.strictObject({
  id: v.string(),
  createdAt: dateTime,
  name: v.string(),
  contactDetails: v.optional(
    v.strictObject({
      email: v.optional(v.string()),
      phoneNumber: v.optional(v.string()),
      locale: v.optional(v.string()),
    }),
  ),
  address: v.optional(v.record(v.string(), v.string())),
  bankAccountIDs: v.array(v.string()),
  metadata: metadataView,
});

export const poolSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  createdAt: dateTime,
  type: v.picklist(POOL_TYPES),
  poolAccounts: v.array(v.string()),
  query: v.optional(v.record(v.string(), v.unknown())),
});

export const poolBalanceSchema = v.strictObject({
  asset: v.string(),
  amount: bigInteger,
  relatedAccounts: v.array(v.string()),
});

const capability = v.string();

export const connectorSchema = v.strictObject({
  id: v.string(),
  reference: v.string(),
  name: v.string(),
  createdAt: dateTime,
  provider: v.string(),
  scheduledForDeletion: v.boolean(),
  capabilities: v.array(capability),
  config: v.record(v.string(), v.unknown()),
  updatedAt: v.optional(dateTime),
});

export const scheduleSchema = v.strictObject({
  id: v.string(),
  connectorID: v.string(),
  createdAt: dateTime,
  pausedAt: v.optional(dateTime),
});

export const instanceSchema = v.strictObject({
  id: v.string(),
  scheduleID: v.string(),
  connectorID: v.string(),
  createdAt: dateTime,
  updatedAt: dateTime,
  terminated: v.boolean(),
  terminatedAt: v.optional(dateTime),
  error: v.optional(v.string()),
});

export const taskSchema = v.strictObject({
  id: v.string(),
  connectorID: v.optional(v.string()),
  status: v.picklist(TASK_STATUSES),
  createdAt: dateTime,
  updatedAt: dateTime,
  error: v.optional(v.string()),
});

export const initiationSchema = v.strictObject({
  id: v.string(),
  connectorID: v.string(),
  provider: v.string(),
  reference: v.string(),
  createdAt: dateTime,
  scheduledAt: v.string(),
  description: v.string(),
  type: v.picklist(INITIATION_TYPES),
  sourceAccountID: v.optional(v.string()),
  destinationAccountID: v.optional(v.string()),
  amount: bigInteger,
  asset: v.string(),
  metadata: metadataView,
  status: v.picklist(INITIATION_STATUSES),
  error: v.optional(v.string()),
});

export const initiationAdjustmentSchema = v.strictObject({
  id: v.string(),
  createdAt: dateTime,
  status: v.picklist(INITIATION_STATUSES),
  amount: v.optional(bigInteger),
  asset: v.optional(v.string()),
  error: v.optional(v.string()),
  metadata: metadataView,
});

export const paymentsSchemas = {
  Payment: paymentSchema,
  PaymentsAccount: accountSchema,
  AccountBalance: balanceSchema,
  BankAccount: bankAccountSchema,
  PaymentServiceUser: paymentServiceUserSchema,
  Pool: poolSchema,
  PoolBalance: poolBalanceSchema,
  Connector: connectorSchema,
  ConnectorSchedule: scheduleSchema,
  ConnectorScheduleInstance: instanceSchema,
  ConnectorTask: taskSchema,
  PaymentInitiation: initiationSchema,
  PaymentInitiationAdjustment: initiationAdjustmentSchema,
  ...paymentsV1Schemas,
};

/** `{data: "<id>"}`: what the reference answers to the creation of a record it identifies by a UUID. */
export const createdId = v.strictObject({ data: v.string() });

export const paymentData = dataOf(paymentSchema);
export const paymentPage = cursorOf(paymentSchema);
export const accountData = dataOf(accountSchema);
export const accountPage = cursorOf(accountSchema);
export const balancePage = cursorOf(balanceSchema);
export const bankAccountData = dataOf(bankAccountSchema);
export const bankAccountPage = cursorOf(bankAccountSchema);
export const paymentServiceUserData = dataOf(paymentServiceUserSchema);
export const paymentServiceUserPage = cursorOf(paymentServiceUserSchema);
export const poolData = dataOf(poolSchema);
export const poolPage = cursorOf(poolSchema);
export const poolBalances = v.strictObject({ data: v.array(poolBalanceSchema) });
export const connectorPage = cursorOf(connectorSchema);
export const configData = v.strictObject({ data: v.record(v.string(), v.unknown()) });
export const configsData = v.strictObject({
  data: v.record(
    v.string(),
    v.record(
      v.string(),
      v.strictObject({
        dataType: v.string(),
        required: v.boolean(),
        defaultValue: v.optional(v.string()),
      }),
    ),
  ),
});
export const capabilitiesByProvider = v.strictObject({
  data: v.record(v.string(), v.array(capability)),
});
export const capabilityList = v.strictObject({ data: v.array(capability) });
export const schedulePage = cursorOf(scheduleSchema);
export const scheduleData = dataOf(scheduleSchema);
export const instancePage = cursorOf(instanceSchema);
export const taskData = dataOf(taskSchema);
export const taskIdData = v.strictObject({ data: v.strictObject({ taskID: v.string() }) });
export const initiationData = dataOf(initiationSchema);
export const initiationPage = cursorOf(initiationSchema);
export const initiationAdjustmentPage = cursorOf(initiationAdjustmentSchema);
export const initiationCreated = v.strictObject({
  data: v.strictObject({ paymentInitiationID: v.string(), taskID: v.optional(v.string()) }),
});
export const reversalCreated = v.strictObject({
  data: v.strictObject({ paymentInitiationReversalID: v.string(), taskID: v.string() }),
});

export const paymentsDocument = {
  service: 'payments',
  title: 'Payments',
  description:
    'Payments (v3): payments, accounts and balances, bank accounts, payment service users and pools; each change emitted as a `payments.saved_*` event.',
  schemas: paymentsSchemas,
} as const;
