import type { ServiceOperation } from './services.js';

/** Why the platform deliberately does not serve an SDK operation (the report's note column). */
const REASON = {
  metrics:
    "not served: the platform's metrics are CloudWatch's (docs/operations.md); there is no metrics endpoint",
  v1Mapping:
    "SDK 7.0.1's Expr model is z.object({}), which strips the contract expression before sending: not fixable server-side (the raw HTTP route works, see test/integration/ledger/ledger-mapping.test.ts)",
  payments: 'not served yet (docs/decisions/payments.md, "Not served")',
  exchanges: 'not served: orders and conversions (exchange connectors) are out of scope',
} as const;

/** The SDK operations the platform deliberately does not serve (or cannot serve through the SDK), with why. */
export const NOT_SERVED: Partial<Record<ServiceOperation, string>> = {
  'ledger.v2.getMetrics': REASON.metrics,
  'ledger.v1.updateMapping': REASON.v1Mapping,
};

/** Why a payments operation is not served (or not through the SDK), by operation. */
const PAYMENTS_REASONS: Partial<Record<ServiceOperation, string>> = {
  'payments.v3.listOrders': REASON.exchanges,
  'payments.v3.getOrder': REASON.exchanges,
  'payments.v3.listConversions': REASON.exchanges,
  'payments.v3.getConversion': REASON.exchanges,
};

/** The payments operations served (docs/api.md section 6, and the service info every service answers). */
const PAYMENTS_SERVED = new Set<string>([
  'createPayment',
  'getPayment',
  'listPayments',
  'updatePaymentMetadata',
  'installConnector',
  'listConnectors',
  'listConnectorConfigs',
  'listConnectorCapabilities',
  'getConnectorCapabilities',
  'getConnectorConfig',
  'v3UpdateConnectorConfig',
  'listConnectorSchedules',
  'getConnectorSchedule',
  'listConnectorScheduleInstances',
  'resetConnector',
  'getTask',
  'uninstallConnector',
  'createAccount',
  'getAccount',
  'listAccounts',
  'getAccountBalances',
  'createBankAccount',
  'getBankAccount',
  'listBankAccounts',
  'updateBankAccountMetadata',
  'forwardBankAccount',
  'forwardPaymentServiceUserBankAccount',
  'forwardPaymentServiceUserToProvider',
  'createLinkForPaymentServiceUser',
  'getPaymentServiceUserLinkAttemptFromConnectorID',
  'updateLinkForPaymentServiceUserOnConnector',
  'deletePaymentServiceUserConnectionFromConnectorID',
  'deletePaymentServiceUserConnector',
  'createPool',
  'getPool',
  'listPools',
  'addAccountToPool',
  'removeAccountFromPool',
  'updatePoolQuery',
  'getPoolBalances',
  'getPoolBalancesLatest',
  'deletePool',
  'createPaymentServiceUser',
  'getPaymentServiceUser',
  'listPaymentServiceUsers',
  'addBankAccountToPaymentServiceUser',
  'deletePaymentServiceUser',
  'initiatePayment',
  'listPaymentInitiations',
  'getPaymentInitiation',
  'approvePaymentInitiation',
  'rejectPaymentInitiation',
  'retryPaymentInitiation',
  'reversePaymentInitiation',
  'listPaymentInitiationAdjustments',
  'listPaymentInitiationRelatedPayments',
  'deletePaymentInitiation',
]);

/** The note for an operation the platform deliberately does not serve, if it is one. */
export function notServedReason(service: string, op: string): string | undefined {
  const key = `${service}.${op}`;
  if (service === 'payments.v1') return undefined;
  if (service === 'payments.v3' && PAYMENTS_SERVED.has(op)) return undefined;
  if (service.startsWith('payments.'))
    return PAYMENTS_REASONS[key as ServiceOperation] ?? REASON.payments;
  return NOT_SERVED[key as ServiceOperation];
}
