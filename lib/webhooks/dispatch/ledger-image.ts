import { DEFAULT_ENVIRONMENT } from '../../environments/environment-id.js';
import { environmentOfKey, withoutEnvironment } from '../../environments/key-scope.js';

/**
 * The environment of a ledger-table item that carries events, and the image as `ledgerEventsOfImage`
 * (lib/ledger/store/log-events.ts) reads it.
 *
 * TRANSITIONAL, until the ledger's keys carry the environment (the ledger part of #15): its items are still
 * `L#<ledger>#LOG` / `L#<ledger>` on this branch, and log-events.ts parses exactly those. So, for now, an
 * unprefixed item is the default environment's, and a prefixed one is handed on without its prefix. Once the
 * ledger writes `E#<env>#L#...` and log-events.ts reads it, this becomes: no environment → MalformedEventError
 * (as for the events table), and the image passes unchanged. Expectations that flip then: the unprefixed log
 * item at the end of test/integration/webhooks-environments.test.ts's dispatch test (→ a batch item failure), and
 * the unprefixed ledger items of webhooks-dispatch.test.ts (→ prefixed with `E#default#`).
 */
export function ledgerImageInEnvironment(image: Record<string, unknown>): {
  environment: string;
  image: Record<string, unknown>;
} {
  const pk = String(image.pk ?? '');
  const environment = environmentOfKey(pk);
  if (environment === undefined) return { environment: DEFAULT_ENVIRONMENT, image };
  return { environment, image: { ...image, pk: withoutEnvironment(pk) } };
}
