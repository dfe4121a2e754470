import { ValidationError } from '../../../errors/index.js';
import type { Connector } from '../connectors/connector.js';
import { formatDuration } from '../connectors/duration.js';
import {
  type ConnectorConfig,
  MASK,
  PROVIDERS,
  type ProviderSpec,
} from '../connectors/providers.js';
import type { Schedule } from '../connectors/tasks.js';
import { v1ProviderOf } from './v1-vocabulary.js';

/**
 * Connectors in v1 words. v1 names a provider in its paths (`/connectors/GENERIC/...`); its config bodies name the
 * polling period of dummypay `filePollingPeriod`, and carry no page size.
 */

/** A v1 config body as the v3 config checks read it (the one renamed field). */
export function configBodyOfV1(spec: ProviderSpec, body: Record<string, unknown>) {
  if (spec.name !== 'dummypay' || !('filePollingPeriod' in body)) return body;
  const { filePollingPeriod, ...rest } = body;
  if ('pollingPeriod' in rest)
    throw new ValidationError('body.filePollingPeriod: give filePollingPeriod or pollingPeriod');
  return { ...rest, pollingPeriod: filePollingPeriod };
}

/** The config as v1 answers it: its provider's literal, the v1 field names, secrets masked. */
export function configV1View(spec: ProviderSpec, config: ConnectorConfig): Record<string, unknown> {
  const period = formatDuration(config.pollingPeriodMs);
  if (spec.name === 'dummypay')
    return {
      provider: spec.configProvider,
      name: config.name,
      directory: config.fields.directory,
      filePollingPeriod: period,
    };
  const fields = Object.fromEntries(
    Object.entries(config.fields).map(([k, value]) => [k, spec.fields[k]?.secret ? MASK : value]),
  );
  return { provider: spec.configProvider, name: config.name, pollingPeriod: period, ...fields };
}

/** `GET /connectors/configs`: each provider's fields under their v1 names. */
export function providerConfigsV1() {
  return Object.fromEntries(
    Object.values(PROVIDERS).map((spec) => [
      spec.name,
      Object.fromEntries(
        Object.entries(spec.fields)
          .filter(([k]) => k !== 'pageSize')
          .map(([k, { secret: _s, ...f }]) => [
            spec.name === 'dummypay' && k === 'pollingPeriod' ? 'filePollingPeriod' : k,
            f,
          ]),
      ),
    ]),
  );
}

export const connectorV1View = (c: Connector) => ({
  provider: v1ProviderOf(c.provider) ?? c.provider,
  connectorID: c.id,
  name: c.name,
  enabled: !c.scheduledForDeletion,
});

/**
 * A schedule as a v1 task: v1's tasks are a connector's periodic fetches, which v3 calls schedules (the reference
 * answers its schedules there too). Running unless paused.
 */
export const scheduleAsV1Task = (s: Schedule) => ({
  id: s.id,
  connectorID: s.connectorID,
  createdAt: s.createdAt,
  updatedAt: s.createdAt,
  descriptor: { name: s.taskType, key: s.taskType },
  status: s.pausedAt === undefined ? 'ACTIVE' : 'STOPPED',
  state: s.state,
});
