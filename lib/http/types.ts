import type { Logger } from '../observability/logger.js';
import type { Principal } from '../tokens/principal.js';

export type { Principal } from '../tokens/principal.js';

/**
 * Hono environment shared by every service app. Bindings differ by runtime (Lambda: `event`, node-server:
 * `incoming`), so they stay loosely typed and only `source-address.ts` and `request-context.ts` look inside.
 */
export interface AppEnv {
  Bindings: Record<string, unknown>;
  Variables: {
    requestId: string;
    logger: Logger;
    principal: Principal;
    /** Extra fields for the request's log line (never secrets). */
    logFields: Record<string, unknown>;
  };
}
