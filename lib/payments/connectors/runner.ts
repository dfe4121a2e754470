import { formatInstant, instantFromMs } from '../../time/instant.js';
import { accountId, recordAccount } from '../domain/account.js';
import type { Connector } from '../domain/connectors/connector.js';
import type { DummypaySettings } from '../domain/connectors/dummypay-directory.js';
import type { Instance, Schedule } from '../domain/connectors/tasks.js';
import { newRecordId } from '../domain/ids.js';
import { type Payment, paymentId, recordPayment } from '../domain/payment.js';
import { connectorAccountIds } from '../store/connector-data.js';
import type { PaymentsStores } from '../store/stores.js';
import { dummypayClient } from './dummypay.js';
import { genericClient } from './generic.js';
import type { HttpDeps } from './http.js';
import { mirrorPayment } from './ledger-link.js';
import { ACCOUNT_TYPE_OF_TASK, type ProviderClient, type ProviderPayment } from './provider.js';

/** Pages one run reads at most: a run stays short (a Lambda's timeout); the next run, due at once, goes on. */
export const MAX_PAGES_PER_RUN = 20;
/** Accounts whose balances one run refreshes at most. */
export const MAX_BALANCE_ACCOUNTS_PER_RUN = 500;
/** How long a run holds its schedule (longer than a run can last). */
export const LEASE_MS = 15 * 60_000;
/** A failed run is tried again after this (or the polling period, if shorter). */
export const RETRY_AFTER_FAILURE_MS = 60_000;

export type RunOutcome = 'skipped' | 'done' | 'more' | 'failed';

/** What a run needs: the provider's HTTP, and where dummypay may read (docs/decisions/payments.md). */
export interface RunnerDeps extends HttpDeps {
  dummypay: DummypaySettings;
  /** The platform's public URL, where a connector's ledger link reaches auth and the ledger (PUBLIC_BASE_URL). */
  publicBaseUrl?: string;
}

/** The provider client of a connector. */
export function clientOf(connector: Connector, deps: RunnerDeps): ProviderClient {
  const fields = connector.config.fields;
  if (connector.provider === 'dummypay')
    return dummypayClient(deps.dummypay, String(fields.directory), deps);
  return genericClient({ endpoint: String(fields.endpoint), apiKey: String(fields.apiKey) }, deps);
}

/**
 * One run of one schedule: the code the worker Lambda runs for a scheduled task, and the local timer too. It
 * claims the schedule (a lease: one run at a time), reads pages from the cursor, records what they bring (each
 * record written idempotently: the same page read twice changes nothing), saves the cursor after each page, and
 * records the run as an instance. A failure is recorded and retried by a later run from the last saved cursor.
 */
export async function runSchedule(
  stores: PaymentsStores,
  schedule: Schedule,
  deps: RunnerDeps,
): Promise<RunOutcome> {
  const connector = await stores.connectors.get(schedule.connectorID);
  if (!connector || connector.scheduledForDeletion) return 'skipped';
  const runId = newRecordId();
  const nowMs = stores.now();
  if (!(await stores.schedules.claim(schedule, nowMs, nowMs + LEASE_MS, runId))) return 'skipped';
  const started = formatInstant(instantFromMs(nowMs));
  const instance: Instance = {
    id: runId,
    scheduleID: schedule.id,
    connectorID: schedule.connectorID,
    createdAt: started,
    updatedAt: started,
    terminated: false,
  };
  await stores.schedules.saveInstance(instance);
  const periodMs = connector.config.pollingPeriodMs;
  try {
    const more = await readPages(stores, connector, schedule, runId, deps);
    const endMs = stores.now();
    await stores.schedules.release(schedule, runId, more ? endMs : endMs + periodMs);
    await stores.schedules.saveInstance(ended(instance, endMs));
    return more ? 'more' : 'done';
  } catch (err) {
    const endMs = stores.now();
    await stores.schedules.release(
      schedule,
      runId,
      endMs + Math.min(periodMs, RETRY_AFTER_FAILURE_MS),
    );
    await stores.schedules.saveInstance(ended(instance, endMs, (err as Error).message));
    return 'failed';
  }
}

function ended(instance: Instance, endMs: number, error?: string): Instance {
  const at = formatInstant(instantFromMs(endMs));
  return {
    ...instance,
    updatedAt: at,
    terminated: true,
    terminatedAt: at,
    ...(error !== undefined ? { error } : {}),
  };
}

/** Reads pages until the provider has no more or the run's page budget is spent (then true: more to read). */
async function readPages(
  stores: PaymentsStores,
  connector: Connector,
  schedule: Schedule,
  runId: string,
  deps: RunnerDeps,
): Promise<boolean> {
  const client = clientOf(connector, deps);
  let state = schedule.state;
  const size = connector.config.pageSize;
  for (let page = 0; page < MAX_PAGES_PER_RUN; page++) {
    let hasMore: boolean;
    if (schedule.taskType === 'FETCH_PAYMENTS') {
      const fetched = await client.fetchPayments(state, size);
      for (const p of fetched.items) {
        const saved = await savePayment(stores, connector.id, p);
        // Before the cursor moves: a posting that fails is asked again when the run is retried from it.
        await mirrorPayment(deps, stores.environment, connector, saved, {
          source: p.sourceAccountReference,
          destination: p.destinationAccountReference,
        });
      }
      ({ state, hasMore } = fetched);
    } else {
      const fetch =
        schedule.taskType === 'FETCH_ACCOUNTS'
          ? client.fetchAccounts
          : client.fetchExternalAccounts;
      const fetched = await fetch(state, size);
      const type = ACCOUNT_TYPE_OF_TASK[schedule.taskType];
      for (const a of fetched.items) {
        const input = { ...a, connectorID: connector.id, type };
        await stores.accounts.save(accountId(connector.id, a.reference), (current) =>
          recordAccount(current, input),
        );
      }
      ({ state, hasMore } = fetched);
    }
    if (!(await stores.schedules.saveState(schedule, runId, state)))
      throw new Error('the run lost its lease on the schedule');
    if (!hasMore) {
      if (schedule.taskType === 'FETCH_ACCOUNTS') await refreshBalances(stores, connector, client);
      return false;
    }
  }
  return true;
}

/** Reads the balances of the connector's internal accounts and records them (periods: see domain/balance.ts). */
async function refreshBalances(
  stores: PaymentsStores,
  connector: Connector,
  client: ProviderClient,
): Promise<void> {
  const ids = await connectorAccountIds(stores.options, connector.id, MAX_BALANCE_ACCOUNTS_PER_RUN);
  for (const id of ids) {
    const account = await stores.accounts.get(id);
    if (account?.type !== 'INTERNAL') continue;
    for (const b of await client.fetchBalances(account.reference)) {
      await stores.balances.record(
        { accountID: id, asset: b.asset, balance: b.balance, at: b.at },
        connector.id,
      );
    }
  }
}

export async function savePayment(
  stores: PaymentsStores,
  connectorID: string,
  p: ProviderPayment,
): Promise<Payment> {
  const { sourceAccountReference: source, destinationAccountReference: destination, ...rest } = p;
  const input = {
    ...rest,
    connectorID,
    ...(source !== undefined ? { sourceAccountID: accountId(connectorID, source) } : {}),
    ...(destination !== undefined
      ? { destinationAccountID: accountId(connectorID, destination) }
      : {}),
  };
  const saved = await stores.payments.save(paymentId(connectorID, p.reference, p.type), (current) =>
    recordPayment(current, input),
  );
  return saved.payment;
}
