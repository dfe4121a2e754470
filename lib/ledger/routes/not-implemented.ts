import type { Hono } from 'hono';
import { NotImplementedError } from '../../errors/index.js';
import type { HonoTypes } from '../../http/types.js';

/**
 * The reference ledger's operations this platform does not serve. Their paths answer 501 NOT_IMPLEMENTED in the
 * contract's error shape with the reason, with or without a token (they serve no data, and SDK 7.0.1 sends none
 * for some of them), so a client of the reference platform learns the operation is missing rather than that it
 * mistyped a path (404). Registered before the v1 routes, whose `/:ledger/...` would otherwise take them.
 */
const REASONS = {
  metrics:
    "the ledger's in-memory metrics are not implemented by this platform: its metrics are CloudWatch's (and /_metrics locally)",
} as const;

export function ledgerNotImplementedRoutes(app: Hono<HonoTypes>): void {
  const refuse = (reason: string) => () => {
    throw new NotImplementedError(reason);
  };
  app.all('/_/metrics', refuse(REASONS.metrics));
}
