import type { ServiceOperation } from './services.js';

/** Why the platform deliberately does not serve an SDK operation (the report's note column). */
const REASON = {
  exporters:
    "not served: exporters and pipelines (the reference stack's replication to external stores) are out of scope; events reach consumers through webhooks",
  metrics:
    "not served: the platform's metrics are CloudWatch's (docs/operations.md); there is no metrics endpoint",
  v1Mapping:
    "SDK 7.0.1's Expr model is z.object({}), which strips the contract expression before sending: not fixable server-side (the raw HTTP route works, see test/integration/ledger-mapping.test.ts)",
  payments:
    'not served: outside the payments scope (the v3 payments resource and the service info only)',
} as const;

/** The SDK operations the platform deliberately does not serve (or cannot serve through the SDK), with why. */
export const NOT_SERVED: Partial<Record<ServiceOperation, string>> = {
  'ledger.v2.createExporter': REASON.exporters,
  'ledger.v2.listExporters': REASON.exporters,
  'ledger.v2.getExporterState': REASON.exporters,
  'ledger.v2.updateExporter': REASON.exporters,
  'ledger.v2.deleteExporter': REASON.exporters,
  'ledger.v2.createPipeline': REASON.exporters,
  'ledger.v2.listPipelines': REASON.exporters,
  'ledger.v2.getPipelineState': REASON.exporters,
  'ledger.v2.startPipeline': REASON.exporters,
  'ledger.v2.stopPipeline': REASON.exporters,
  'ledger.v2.resetPipeline': REASON.exporters,
  'ledger.v2.deletePipeline': REASON.exporters,
  'ledger.v2.getMetrics': REASON.metrics,
  'ledger.v1.updateMapping': REASON.v1Mapping,
};

/**
 * The payments operations in scope (docs/api.md section 6, and the service info every service answers); the others
 * (connectors, accounts, bank accounts, pools, initiations, payment service users, orders, conversions, v1) are not.
 */
const PAYMENTS_SERVED = new Set<ServiceOperation>([
  'payments.v3.createPayment',
  'payments.v3.getPayment',
  'payments.v3.listPayments',
  'payments.v3.updatePaymentMetadata',
  'payments.v1.getServerInfoPayments',
]);

/** The note for an operation the platform deliberately does not serve, if it is one. */
export function notServedReason(service: string, op: string): string | undefined {
  const key = `${service}.${op}`;
  if (service.startsWith('payments.') && !PAYMENTS_SERVED.has(key as ServiceOperation))
    return REASON.payments;
  return NOT_SERVED[key as ServiceOperation];
}
