import type { Hono } from 'hono';
import { bearerAuth } from '../bearer/middleware.js';
import { createServiceApp } from '../http/service-app.js';
import type { HonoTypes } from '../http/types.js';
import type { Service } from '../tokens/scopes.js';
import type { ServiceRuntime } from './runtime.js';

/**
 * A service app whose every route but the health probe needs a bearer token with the service's scope.
 * `beforeAuth` registers what answers without one (routes that serve nothing, such as 501s).
 */
export function createProtectedApp(
  service: Service,
  runtime: ServiceRuntime,
  options: { beforeAuth?: (app: Hono<HonoTypes>) => void } = {},
): Hono<HonoTypes> {
  const app = createServiceApp({
    service,
    logger: runtime.logger,
    corsOrigins: runtime.config.corsOrigins,
  });
  options.beforeAuth?.(app);
  app.use('*', bearerAuth(service, runtime.verifier));
  return app;
}
