import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { environmentOfKey } from '../environments/key-scope.js';
import { MalformedEventError } from '../events/malformed-event.js';
import { EVENT_ATTRIBUTE, type LedgerEvent, ledgerEventsOfImage } from './store/log-events.js';

/**
 * The ledger's events as other services read them: the one module they import to decode a ledger table's stream
 * record, so the layout of its items stays the ledger's own (docs/architecture.md, "The rules, checked").
 */
export type LedgerStreamEvent = LedgerEvent & { environment: string };

/**
 * The events a new image of a ledger table carries, in order, each in the environment its key names; undefined
 * for an item that carries none (most items). Every ledger item is written in an environment, so an item that
 * carries events and names none is malformed. The raw image is looked at first: volume items hold 38-digit numbers
 * that have no business being converted here.
 */
export function ledgerEventsOfNewImage(
  raw: Record<string, AttributeValue>,
): LedgerStreamEvent[] | undefined {
  if (raw[EVENT_ATTRIBUTE] === undefined) return undefined;
  const image = unmarshall(raw, { wrapNumbers: false });
  const pk = String(image.pk ?? '');
  const environment = environmentOfKey(pk);
  if (environment === undefined)
    throw new MalformedEventError(`ledger item ${pk.slice(0, 200)} names no environment`);
  return ledgerEventsOfImage(image).map((event) => ({ ...event, environment }));
}
