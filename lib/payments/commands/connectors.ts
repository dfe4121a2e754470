import { commitUnlessRaced } from '../../dynamo/optimistic.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { checkDummypayConfig } from '../connectors/confined-files.js';
import {
  type Connector,
  newConnector,
  parseConnectorId,
  withConfig,
} from '../domain/connectors/connector.js';
import type { DummypaySettings } from '../domain/connectors/dummypay-directory.js';
import { type ConnectorConfig, providerSpec } from '../domain/connectors/providers.js';
import { newSchedules, type Task } from '../domain/connectors/tasks.js';
import { newRecordId } from '../domain/ids.js';
import { purgeConnectorData, purgeConnectorPartition } from '../store/connector-data.js';
import type { PaymentsStores } from '../store/stores.js';
import { nowText } from './clock.js';

export const connectorNotFound = (id: string) =>
  new NotFoundError(`connector ${id.slice(0, 400)} not found`);

/** The connector a path names, or 404 (also for an id that cannot be a connector's). */
export async function requireConnector(stores: PaymentsStores, id: string): Promise<Connector> {
  const connector = parseConnectorId(id) ? await stores.connectors.get(id) : undefined;
  if (!connector) throw connectorNotFound(id);
  return connector;
}

/** What a provider's config may name on this platform: dummypay's directory (local stage, within its root). */
async function checkProviderConfig(
  provider: string,
  config: ConnectorConfig,
  dummypay: DummypaySettings,
): Promise<void> {
  if (provider === 'dummypay') await checkDummypayConfig(dummypay, config.fields);
}

/**
 * Installs a connector: the record and one schedule per task of its provider, due now, in one transaction (a
 * connector never exists without its schedules).
 */
export async function installConnector(
  stores: PaymentsStores,
  provider: string,
  config: ConnectorConfig,
  dummypay: DummypaySettings,
): Promise<Connector> {
  const spec = providerSpec(provider);
  await checkProviderConfig(spec.name, config, dummypay);
  const createdAt = nowText(stores);
  const connector = newConnector(spec, newRecordId(), createdAt, config);
  const schedules = newSchedules(connector.id, spec.tasks, createdAt, stores.now());
  const items = [
    ...stores.connectors.putItems(connector, undefined),
    ...stores.schedules.createItems(schedules),
  ];
  if (!(await commitUnlessRaced(stores.doc, items)))
    throw new ConflictError(`connector ${connector.id} already exists`);
  return connector;
}

export async function updateConnectorConfig(
  stores: PaymentsStores,
  id: string,
  config: ConnectorConfig,
  dummypay: DummypaySettings,
): Promise<Connector> {
  const connector = await requireConnector(stores, id);
  await checkProviderConfig(connector.provider, config, dummypay);
  const updatedAt = nowText(stores);
  return stores.connectors.save(id, (current) => {
    if (!current) throw connectorNotFound(id);
    return withConfig(current, config, updatedAt);
  });
}

export async function startTask(stores: PaymentsStores, connectorID: string): Promise<Task> {
  const now = nowText(stores);
  const task: Task = {
    id: newRecordId(),
    connectorID,
    status: 'PROCESSING',
    createdAt: now,
    updatedAt: now,
  };
  return stores.tasks.save(task.id, () => task);
}

export async function finishTask(
  stores: PaymentsStores,
  task: Task,
  error?: unknown,
): Promise<Task> {
  const done: Task = {
    ...task,
    status: error === undefined ? 'SUCCEEDED' : 'FAILED',
    updatedAt: nowText(stores),
    ...(error !== undefined
      ? { error: error instanceof Error ? error.message : String(error) }
      : {}),
  };
  return stores.tasks.save(task.id, () => done);
}

/**
 * Uninstalls a connector as the reference does: it stops running (scheduled for deletion), then its accounts,
 * balances, payments, schedules and finally the record itself are removed. The task says how it went; a purge
 * cut short (a timeout) leaves the connector scheduled for deletion, and the next uninstall resumes it.
 */
export async function uninstallConnector(stores: PaymentsStores, id: string): Promise<Task> {
  await requireConnector(stores, id);
  await stores.connectors.save(id, (current) => {
    if (!current) throw connectorNotFound(id);
    return { ...current, scheduledForDeletion: true };
  });
  const task = await startTask(stores, id);
  try {
    await purgeConnectorPartition(stores.options, id);
    await purgeConnectorData(stores.options, id);
    await stores.connectors.remove(id);
    return await finishTask(stores, task);
  } catch (err) {
    return finishTask(stores, task, err);
  }
}

/**
 * Resets a connector: its data is removed and its schedules start over from no cursor, so the provider's data is
 * fetched again from the beginning. The connector keeps its id and config.
 */
export async function resetConnector(stores: PaymentsStores, id: string): Promise<Task> {
  const connector = await requireConnector(stores, id);
  if (connector.scheduledForDeletion)
    throw new ConflictError(`connector ${id} is being uninstalled`);
  const task = await startTask(stores, id);
  try {
    await purgeConnectorPartition(stores.options, id);
    await purgeConnectorData(stores.options, id);
    const spec = providerSpec(connector.provider);
    const schedules = newSchedules(id, spec.tasks, nowText(stores), stores.now());
    await commitUnlessRaced(stores.doc, stores.schedules.resetItems(schedules, stores.now()));
    return await finishTask(stores, task);
  } catch (err) {
    return finishTask(stores, task, err);
  }
}
