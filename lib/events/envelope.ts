import { createHash } from 'node:crypto';
import { EVENT_APP, EVENT_VERSION, type EventKind } from '../../events/catalog.js';
import { stringifyJson } from '../json/bigint-json.js';

export interface EventSource {
  type: EventKind;
  /**
   * What makes the event unique (e.g. `ledger/<name>/<log id>`): the event id is derived from it, so retrying
   * a write, or reading its stream record twice, can never produce a second event for the same change.
   */
  seed: string;
  idempotencyKey: string;
  date: string;
  payload: unknown;
}

/** One event as dispatch hands it on: `body` is the envelope, sent to receivers byte for byte. */
export interface EventEnvelopeText {
  id: string;
  type: EventKind;
  body: string;
}

/** The event id of a seed: 32 hex digits of its SHA-256. */
export const eventIdOf = (seed: string): string =>
  createHash('sha256').update(seed).digest('hex').slice(0, 32);

/**
 * The envelope of docs/api.md §5 as exact JSON, the only place it is built: the events-table rows (outbox) and the
 * ledger's log items (read back from the ledger table's stream) both go through here, so a receiver cannot
 * tell which way an event travelled.
 */
export function eventEnvelope(event: EventSource): EventEnvelopeText {
  const id = eventIdOf(event.seed);
  const envelope = {
    id,
    idempotency_key: event.idempotencyKey,
    date: event.date,
    app: EVENT_APP[event.type],
    version: EVENT_VERSION,
    type: event.type,
    payload: event.payload,
  };
  return { id, type: event.type, body: stringifyJson(envelope) };
}
