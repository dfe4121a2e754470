import type { Logger } from '../observability/logger.js';

/** What the bearer middleware learned about the caller. */
export interface Principal {
  clientId: string;
  /** `sub`: the client, or the person a platform or personal token was issued to. */
  subject: string;
  scopes: ReadonlySet<string>;
  /** The environment an environment token is scoped to; undefined for a platform token. */
  environment?: string;
}

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
