import { type Context, Hono } from 'hono';
import { localConsoleSite } from '../../lib/console/local.js';
import { localDocsSite } from '../../lib/openapi/local-site.js';

// biome-ignore lint/suspicious/noExplicitAny: each app declares its own bindings type; the gateway passes them on
export type FetchHandler = (request: Request, env?: any) => Response | Promise<Response>;

export interface HealthReport {
  status: 'ok' | 'unavailable';
  components: Record<string, 'up' | 'down'>;
}

/**
 * Routes `/api/<service>/*` to each service's app with the full path, as the API Gateway HTTP API routes
 * `/api/<service>/{proxy+}` to its Lambda. Anything else is a 404 in the contract's error shape.
 */
export function createGateway(
  services: Record<string, { fetch: FetchHandler }>,
  health: () => Promise<HealthReport>,
  versions?: Hono,
): Hono {
  const gateway = new Hono();
  // `GET /versions`, which the API routes to the auth function in AWS (functions/auth.ts).
  if (versions) gateway.route('/', versions);
  gateway.route('/', localConsoleSite()); // the console at /console (lib/console)
  // `/docs` (the API reference) and `/openapi.json` (every service's document in one): lib/openapi/site.ts.
  gateway.route('/', localDocsSite(services, versions ? [versions] : []));
  gateway.get('/_health', async (c) => {
    const report = await health();
    return c.json(report, report.status === 'ok' ? 200 : 503);
  });
  const forward = (c: Context) => {
    const app = services[c.req.param('service') ?? ''];
    return app ? app.fetch(c.req.raw, c.env) : notFound(c.req.method, c.req.path);
  };
  gateway.all('/api/:service', forward);
  gateway.all('/api/:service/*', forward);
  gateway.notFound((c) => notFound(c.req.method, c.req.path));
  return gateway;
}

function notFound(method: string, path: string): Response {
  return Response.json(
    { errorCode: 'NOT_FOUND', errorMessage: `no route for ${method} ${path}` },
    { status: 404 },
  );
}
