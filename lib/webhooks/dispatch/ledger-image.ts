import { environmentOfKey } from '../../environments/key-scope.js';
import { MalformedEventError } from '../../events/malformed-event.js';

/**
 * The environment of a ledger-table item that carries events: the one its key names (`E#<env>#L#...`). Every
 * ledger item is written in an environment, so an item that names none is malformed, as for the events table;
 * `ledgerEventsOfImage` (lib/ledger/store/log-events.ts) reads the image as it is.
 */
export function ledgerImageInEnvironment(image: Record<string, unknown>): {
  environment: string;
  image: Record<string, unknown>;
} {
  const pk = String(image.pk ?? '');
  const environment = environmentOfKey(pk);
  if (environment === undefined)
    throw new MalformedEventError(`ledger item ${pk.slice(0, 200)} names no environment`);
  return { environment, image };
}
