import { type EventSource, eventEnvelope } from './envelope.js';

/** Event rows expire a week after they are written: the table stream has carried them on long before. */
export const EVENT_TTL_SECONDS = 7 * 24 * 3600;

export const eventKey = (id: string) => ({ pk: `EVENT#${id}`, sk: 'EVENT' });

export interface OutboxEvent extends EventSource {
  nowMs: number;
  /** Extra attributes of the row for whoever reads the table (payment and version...). */
  attributes: Record<string, unknown>;
}

/**
 * The events-table row of one event (the transactional outbox, DESIGN.md): written in the same
 * TransactWriteItems as the change it reports. `body` is the envelope of docs/api.md §5 as exact JSON.
 */
export function outboxRow(event: OutboxEvent): Record<string, unknown> {
  const { id, body } = eventEnvelope(event);
  return {
    ...eventKey(id),
    type: event.type,
    ...event.attributes,
    date: event.date,
    body,
    expiresAt: Math.floor(event.nowMs / 1000) + EVENT_TTL_SECONDS,
  };
}
