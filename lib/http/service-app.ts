import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { isThrottling } from '../dynamo/errors.js';
import { DependencyThrottledError, PayloadTooLargeError } from '../errors/index.js';
import type { Logger } from '../observability/logger.js';
import { errorResponse, notFoundResponse } from './error-mapper.js';
import { requestContext } from './request-context.js';
import type { HonoTypes } from './types.js';

/** docs/api.md §1: request bodies over 1 MiB are refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ServiceAppOptions {
  /** `auth`, `ledger`, `webhooks` or `payments`: the app answers under `/api/<service>`. */
  service: string;
  logger: Logger;
  /** Routes (relative to the service) that enforce a smaller limit of their own, with their own error shape. */
  routesWithOwnBodyLimit?: readonly string[];
  /** Browser origins allowed to call the API (CORS); none: no CORS headers, preflights are 404s. */
  corsOrigins?: readonly string[];
}

/**
 * The frame every service app shares: served under `/api/<service>` (API Gateway passes the full path to the
 * Lambda, and the local gateway does the same), request id and log line, 1 MiB body limit, the single error
 * mapper, 404 in the contract's shape, and the unauthenticated health probe.
 */
export function createServiceApp({
  service,
  logger,
  routesWithOwnBodyLimit = [],
  corsOrigins = [],
}: ServiceAppOptions): Hono<HonoTypes> {
  const app = new Hono<HonoTypes>().basePath(`/api/${service}`);
  // First, so a browser's preflight is answered before any authentication (it carries no token).
  if (corsOrigins.length > 0) {
    app.use(
      '*',
      cors({
        origin: [...corsOrigins],
        allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowHeaders: [
          'Authorization',
          'Content-Type',
          'Idempotency-Key',
          'Formance-Bigint-As-String',
        ],
        exposeHeaders: ['Count', 'Idempotency-Hit', 'Retry-After', 'x-request-id'],
        maxAge: 600,
      }),
    );
  }
  app.use('*', requestContext(service, logger));
  const exempt = new Set(routesWithOwnBodyLimit.map((r) => `/api/${service}${r}`));
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new PayloadTooLargeError(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  });
  app.use('*', (c, next) => (exempt.has(c.req.path) ? next() : limit(c, next)));
  app.onError((err, c) =>
    errorResponse(
      c,
      isThrottling(err) ? new DependencyThrottledError('service busy, retry shortly') : err,
    ),
  );
  app.notFound((c) => notFoundResponse(c));
  app.get('/_health', (c) => c.json({ status: 'ok', service }));
  return app;
}
