import type { Hono } from 'hono';
import { bearerAuth } from '../bearer/middleware.js';
import { createServiceApp } from '../http/service-app.js';
import type { AppEnv } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import type { ServiceRuntime } from '../runtime/runtime.js';
import { serverInfoRoute } from '../runtime/server-info.js';
import { TokenService } from './commands/token-service.js';
import { type AuthFileConfig, loadAuthConfig } from './domain/static-clients.js';
import { DEFAULT_THROTTLE, type ThrottlePolicy } from './domain/throttle.js';
import { SigningKeys } from './keys/signing-keys.js';
import { keyStoreFor } from './keys/vault-for-runtime.js';
import { clientRoutes } from './routes/clients.js';
import { discoveryRoutes } from './routes/discovery.js';
import { authDocument } from './routes/schemas.js';
import { TOKEN_PATH, tokenRoutes } from './routes/token.js';
import { ClientStore } from './store/client-store.js';
import { ThrottleStore } from './store/throttle-store.js';

export interface AuthAppDeps {
  runtime: ServiceRuntime;
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  /** The static clients; by default those of the runtime's configuration (AUTH_CONFIG, AUTH_CONFIG_INLINE). */
  authConfig?: AuthFileConfig;
  throttle?: ThrottlePolicy;
  signingKeys?: SigningKeys;
  now?: () => number;
}

/**
 * The auth service: discovery, JWKS and the token endpoint (public), clients and secrets (bearer, `auth:*`). Its
 * one composition, used by its Lambda entry (functions/auth.ts) and the local platform.
 */
export function createAuthApp(deps: AuthAppDeps): Hono<AppEnv> {
  const { config, doc, logger, verifier } = deps.runtime;
  const authConfig = deps.authConfig ?? loadAuthConfig(config.auth.staticClients, config.stage);
  const now = deps.now ?? Date.now;
  const table = config.tables.auth;
  const clients = new ClientStore(doc, table);
  const throttle = deps.throttle ?? DEFAULT_THROTTLE;
  const keys = deps.signingKeys ?? new SigningKeys(keyStoreFor(deps.runtime), { now });

  const app = createServiceApp({
    service: 'auth',
    logger,
    routesWithOwnBodyLimit: [TOKEN_PATH],
    corsOrigins: config.corsOrigins,
  });
  serveDocument(app, authDocument, { source: deps.documents, baseUrl: config.publicBaseUrl });
  discoveryRoutes(app, config.issuer, keys);
  tokenRoutes(
    app,
    new TokenService({
      clients,
      budgets: new ThrottleStore(doc, table, throttle),
      keys,
      staticClients: authConfig.clients,
      issuer: config.issuer,
      audience: config.audience,
      resources: authConfig.resources,
      throttle,
      now,
    }),
  );
  const guard = bearerAuth('auth', verifier);
  app.use('/clients', guard);
  app.use('/clients/*', guard);
  app.use('/_info', guard);
  serverInfoRoute(app, 'auth');
  clientRoutes(app, clients, now);
  return app;
}
