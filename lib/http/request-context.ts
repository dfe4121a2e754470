import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../observability/logger.js';
import { recordMetric, routeLabel, statusClass } from '../observability/metrics.js';
import { gatewayRequestId } from './runtime-bindings.js';
import type { HonoTypes } from './types.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (API Gateway's, a sane caller-supplied `x-request-id`, or a new one), returns it in
 * `x-request-id`, and writes exactly one log line when the response is ready. The line carries the route
 * pattern and path but never the query string or body: the token endpoint accepts secrets in both. The request
 * is counted and timed (`Requests`, `Latency`) under the route pattern that answered — a refusal of the bearer
 * check or a path no route matches counts under the service's `/api/<service>/*` — never the raw path.
 */
export function requestContext(service: string, logger: Logger): MiddlewareHandler<HonoTypes> {
  return async (c, next) => {
    const started = performance.now();
    const supplied = c.req.header('x-request-id');
    const requestId =
      gatewayRequestId(c.env) ??
      (supplied !== undefined && SAFE_REQUEST_ID.test(supplied) ? supplied : randomUUID());
    c.set('requestId', requestId);
    c.set('logger', logger);
    c.set('logFields', {});
    await next();
    c.res.headers.set('x-request-id', requestId);
    const principal = c.get('principal');
    // A health probe that succeeds is routine (the local gateway's /_health asks every service): debug only.
    const routine = c.res.status < 400 && c.req.path.endsWith('/_health');
    const route = routePath(c);
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    logger.log(c.res.status >= 500 ? 'error' : routine ? 'debug' : 'info', 'request', {
      requestId,
      service,
      method: c.req.method,
      route,
      path: c.req.path,
      status: c.res.status,
      durationMs,
      ...(principal ? { clientId: principal.clientId } : {}),
      ...c.get('logFields'),
    });
    // Health probes are the local gateway's polling, not traffic.
    if (routine) return;
    const dimensions = {
      service,
      route: routeLabel(c.req.method, route),
      status_class: statusClass(c.res.status),
    };
    recordMetric('Requests', dimensions);
    recordMetric('Latency', dimensions, durationMs);
  };
}
