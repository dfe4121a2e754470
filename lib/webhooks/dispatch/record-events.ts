import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { MalformedEventError } from '../../events/malformed-event.js';
import { parseEventKey } from '../../events/outbox.js';
import { ledgerEventsOfNewImage } from '../../ledger/events.js';
import type { DeliveredEvent } from '../domain/delivery.js';

/** The parts of a stream record (Lambda's `DynamoDBRecord`, or the Streams API's `Record`) dispatch reads. */
export interface StreamRecordLike {
  eventID?: string;
  eventName?: string;
  dynamodb?: {
    SequenceNumber?: string;
    NewImage?: Record<string, unknown>;
  };
}

/**
 * One event to dispatch: `body` is its envelope, delivered byte for byte; `environment` the one its record's key
 * names, whose configs alone it is matched with.
 */
export type DispatchedEvent = DeliveredEvent & { environment: string };

/**
 * Reads the events a record carries from one kind of table; undefined when the record is not of its kind.
 * Each looks at the raw image before unmarshalling it: a ledger table streams every item it writes, and
 * volume items hold 38-digit numbers that have no business being converted here.
 */
type EventDecoder = (record: StreamRecordLike) => DispatchedEvent[] | undefined;

/** The events a record carries, in order: none for a record no decoder recognises (any other item). */
export function eventsOfRecord(record: StreamRecordLike): DispatchedEvent[] {
  for (const decode of DECODERS) {
    const events = decode(record);
    if (events) return events;
  }
  return [];
}

/**
 * The event of an events-table row (payments), or undefined when the record is not the insertion of one. A row
 * whose key names no environment is malformed: there is no environment whose configs it could be matched with.
 */
export function eventOfRecord(record: StreamRecordLike): DispatchedEvent | undefined {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return undefined;
  const raw = record.dynamodb.NewImage as Record<string, AttributeValue>;
  const key = parseEventKey(raw.pk?.S ?? '', raw.sk?.S);
  if (!key) return undefined;
  const image = unmarshall(raw);
  const { id, environment } = key;
  if (!id) throw new MalformedEventError(`event row ${image.pk} has no id`);
  if (environment === undefined)
    throw new MalformedEventError(`event row ${image.pk} names no environment`);
  if (typeof image.type !== 'string' || !image.type)
    throw new MalformedEventError(`event ${id} has no type`);
  if (typeof image.body !== 'string') throw new MalformedEventError(`event ${id} has no body`);
  let envelope: unknown;
  try {
    envelope = JSON.parse(image.body);
  } catch {
    throw new MalformedEventError(`event ${id} has a body that is not JSON`);
  }
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope))
    throw new MalformedEventError(`event ${id} has a body that is not an object`);
  return { id, type: image.type, body: image.body, environment };
}

/**
 * The events of a ledger-table item that carries them, in the environment its key names, as the ledger decodes
 * them (lib/ledger/events.ts). The mapping item is overwritten by each mapping change, so a MODIFY counts as much
 * as an INSERT.
 */
export function ledgerEventsOfRecord(record: StreamRecordLike): DispatchedEvent[] | undefined {
  if (
    (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') ||
    !record.dynamodb?.NewImage
  )
    return undefined;
  return ledgerEventsOfNewImage(record.dynamodb.NewImage as Record<string, AttributeValue>);
}

const DECODERS: readonly EventDecoder[] = [
  (record) => {
    const event = eventOfRecord(record);
    return event && [event];
  },
  ledgerEventsOfRecord,
];
