import { isEnvironmentId } from '../environments/environment-id.js';
import { inEnvironment } from '../environments/key-scope.js';
import { type EventSource, eventEnvelope } from './envelope.js';

/** Event rows expire a week after they are written: the table stream has carried them on long before. */
export const EVENT_TTL_SECONDS = 7 * 24 * 3600;

const EVENT_SORT = 'EVENT';
const EVENT_PARTITION = 'EVENT#';

/**
 * The events-table row of an event: `E#<environment>#EVENT#<id>` / `EVENT` (docs/data-model.md, "Events"). Its
 * environment is the one whose webhook configs dispatch matches it with.
 */
export const eventKey = (environment: string, id: string) => ({
  pk: inEnvironment(environment, `${EVENT_PARTITION}${id}`),
  sk: EVENT_SORT,
});

/**
 * What an events-table key names: undefined for a key that is not an event row's; `environment` undefined for an
 * event row whose key names no environment (malformed: it can never be matched with an environment's configs).
 */
export function parseEventKey(
  pk: string,
  sk: string | undefined,
): { environment?: string; id: string } | undefined {
  if (sk !== EVENT_SORT) return undefined;
  const scoped = /^E#([^#]*)#/.exec(pk);
  const rest = scoped ? pk.slice(scoped[0].length) : pk;
  if (!rest.startsWith(EVENT_PARTITION)) return undefined;
  const id = rest.slice(EVENT_PARTITION.length);
  const environment = scoped?.[1];
  return environment !== undefined && isEnvironmentId(environment) ? { environment, id } : { id };
}

export interface OutboxEvent extends EventSource {
  /** The environment of the change the event reports. */
  environment: string;
  nowMs: number;
  /** Extra attributes of the row for whoever reads the table (payment and version...). */
  attributes: Record<string, unknown>;
}

/**
 * The events-table row of one event (the transactional outbox): written in the same TransactWriteItems as the change
 * it reports, so there is no event without its state and no state without its event (docs/architecture.md, "How an
 * event flows"). `body` is the envelope of docs/api.md §5 as exact JSON.
 */
export function outboxRow(event: OutboxEvent): Record<string, unknown> {
  const { id, body } = eventEnvelope(event);
  return {
    ...eventKey(event.environment, id),
    type: event.type,
    ...event.attributes,
    date: event.date,
    body,
    expiresAt: Math.floor(event.nowMs / 1000) + EVENT_TTL_SECONDS,
  };
}
