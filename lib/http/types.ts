import type { Logger } from '../observability/logger.js';
import type { Principal } from '../tokens/principal.js';

export type { Principal } from '../tokens/principal.js';

/**
 * The type parameters every service app gives Hono (`Hono<HonoTypes>`, `Context<HonoTypes>`): what Hono's own
 * typings call its "Env", named here without that word because "environment" means the tenant in this project
 * (`E#<environment>#`, a token's environment claim). Bindings differ by runtime (Lambda: `event`, node-server:
 * `incoming`), so they stay loosely typed and only `source-address.ts` and `request-context.ts` look inside.
 */
export interface HonoTypes {
  Bindings: Record<string, unknown>;
  Variables: {
    requestId: string;
    logger: Logger;
    principal: Principal;
    /** Extra fields for the request's log line (never secrets). */
    logFields: Record<string, unknown>;
  };
}
