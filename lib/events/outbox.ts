import { createHash } from 'node:crypto';
import { EVENT_APP, EVENT_VERSION, type EventKind } from '../../events/catalog.js';
import { stringifyJson } from '../json/bigint-json.js';

/** Event rows expire a week after they are written: the table stream has carried them on long before. */
export const EVENT_TTL_SECONDS = 7 * 24 * 3600;

export const eventKey = (id: string) => ({ pk: `EVENT#${id}`, sk: 'EVENT' });

export interface OutboxEvent {
  type: EventKind;
  /**
   * What makes the event unique (e.g. `ledger/<name>/<log id>`): the event id is derived from it, so retrying
   * a write can never produce a second event for the same change.
   */
  seed: string;
  idempotencyKey: string;
  date: string;
  payload: unknown;
  nowMs: number;
  /** Extra attributes of the row for whoever reads the table (ledger and log id, payment and version...). */
  attributes: Record<string, unknown>;
}

/**
 * The events-table row of one event (the transactional outbox, DESIGN.md): written in the same
 * TransactWriteItems as the change it reports. `body` is the envelope of API.md §5 as exact JSON.
 */
export function outboxRow(event: OutboxEvent): Record<string, unknown> {
  const id = createHash('sha256').update(event.seed).digest('hex').slice(0, 32);
  const envelope = {
    id,
    idempotency_key: event.idempotencyKey,
    date: event.date,
    app: EVENT_APP[event.type],
    version: EVENT_VERSION,
    type: event.type,
    payload: event.payload,
  };
  return {
    ...eventKey(id),
    type: event.type,
    ...event.attributes,
    date: event.date,
    body: stringifyJson(envelope),
    expiresAt: Math.floor(event.nowMs / 1000) + EVENT_TTL_SECONDS,
  };
}
