import { SDK } from '@formance/formance-sdk';
import { HTTPClient } from '@formance/formance-sdk/lib/http.js';
import type { Hono } from 'hono';
import { bearerForUnsecuredOperations } from '../../infra/commands/compat/unsecured-operations.js';
import type { HonoTypes } from '../../lib/http/types.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { ADMIN, authApp, tokenFor } from './auth.js';

/**
 * The official SDK, unmodified, calling the ledger app in-process as it would over the network: its OAuth client
 * credentials flow against the auth app (the static admin client), its requests to the ledger app. Unless
 * `withExporterHook` is false, the hook that gives the exporter and pipeline operations the token SDK 7.0.1
 * omits: `token`'s (an environment's), by default the admin client's.
 */
export function inProcessSdk(
  runtime: ServiceRuntime,
  ledger: Hono<HonoTypes>,
  options: { withExporterHook?: boolean; token?: () => Promise<string> } = {},
): SDK {
  const auth = authApp(runtime);
  const token = options.token ?? (() => tokenFor(auth, ADMIN));
  const httpClient = new HTTPClient({
    fetcher: async (input, init) => {
      const request = new Request(input, init);
      const path = new URL(request.url).pathname;
      return (path.startsWith('/api/auth/') ? auth : ledger).request(request);
    },
  });
  if (options.withExporterHook !== false) bearerForUnsecuredOperations(httpClient, token);
  return new SDK({
    serverURL: 'http://platform.test',
    httpClient,
    security: {
      clientID: ADMIN.id,
      clientSecret: ADMIN.secret,
      tokenURL: 'http://platform.test/api/auth/oauth/token',
    },
  });
}
