import { SDK } from '@formance/formance-sdk';
import { HTTPClient } from '@formance/formance-sdk/lib/http.js';
import type { Hono } from 'hono';
import type { AppEnv } from '../../lib/http/types.js';

/**
 * The official SDK, unmodified, calling a service app in-process: its requests (paths under `/api/<service>`,
 * bodies, query strings) go to `app.request` with `token` as the bearer instead of over the network.
 */
export function inProcessSdk(app: Hono<AppEnv>, token: string): SDK {
  const httpClient = new HTTPClient({
    fetcher: async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('authorization', `Bearer ${token}`);
      return app.request(request);
    },
  });
  return new SDK({ serverURL: 'http://platform.test', httpClient });
}
