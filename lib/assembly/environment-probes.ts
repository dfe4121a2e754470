import { clientsExist } from '../auth/store/environment-probe.js';
import { ledgersExist } from '../ledger/store/environment-probe.js';
import { paymentsExist } from '../payments/store/environment-probe.js';
import type { EnvironmentProbe } from '../platform/commands/context.js';
import type { ServiceRuntime } from '../runtime/runtime.js';
import { webhookConfigsExist } from '../webhooks/store/environment-probe.js';

/**
 * What an environment may hold, one probe per service, each asking its own store (one Limit-1 read of the
 * environment's list partition): the platform deletes an environment only when none finds anything. Composed here,
 * not in a store, because it spans services; each probe knows only its own table's keys.
 */
export function environmentProbesFor({ doc, config }: ServiceRuntime): EnvironmentProbe[] {
  const { tables } = config;
  return [
    { holds: 'ledgers', exists: (env) => ledgersExist(doc, tables.ledger, env) },
    { holds: 'webhook configs', exists: (env) => webhookConfigsExist(doc, tables.webhooks, env) },
    { holds: 'payments', exists: (env) => paymentsExist(doc, tables.payments, env) },
    { holds: 'clients', exists: (env) => clientsExist(doc, tables.auth, env) },
  ];
}
