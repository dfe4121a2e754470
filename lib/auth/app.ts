import type { Hono } from 'hono';
import { bearerAuth } from '../bearer/middleware.js';
import { TokenVerifier } from '../bearer/token-verifier.js';
import { createServiceApp } from '../http/service-app.js';
import type { HonoTypes } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import { PlatformDirectory } from '../platform/store/directory.js';
import type { ServiceRuntime } from '../runtime/runtime.js';
import { serverInfoRoute } from '../runtime/server-info.js';
import { ClientCredentialsGrant } from './commands/client-credentials-grant.js';
import { EnvironmentTokenGrant } from './commands/environment-token-grant.js';
import { IdTokenExchange } from './commands/id-token-exchange.js';
import type { PersonGrantOptions } from './commands/person-grants.js';
import { TokenService } from './commands/token-service.js';
import { type AuthFileConfig, loadAuthConfig } from './domain/static-clients.js';
import { DEFAULT_THROTTLE, type ThrottlePolicy } from './domain/throttle.js';
import { IdentityProvider } from './identity/identity-provider.js';
import { SigningKeys } from './keys/signing-keys.js';
import { keyStoreFor } from './keys/vault-for-runtime.js';
import { clientRoutes } from './routes/clients.js';
import { discoveryRoutes } from './routes/discovery.js';
import { authDocument } from './routes/schemas.js';
import { TOKEN_PATH, tokenRoutes } from './routes/token.js';
import { userRoutes } from './routes/users.js';
import { ClientStore } from './store/client-store.js';
import { EnvironmentPersons } from './store/environment-persons.js';
import { ThrottleStore } from './store/throttle-store.js';
import { UsedTokenStore } from './store/used-token-store.js';

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
 * The auth service: discovery, JWKS and the token endpoint (public), clients and secrets and the environment's
 * users (bearer, `auth:*`). Its one composition, used by its Lambda entry (functions/auth.ts) and the local
 * platform.
 */
export function createAuthApp(deps: AuthAppDeps): Hono<HonoTypes> {
  const { config, doc, logger, verifier } = deps.runtime;
  const now = deps.now ?? Date.now;
  const table = config.tables.auth;
  const clients = new ClientStore(doc, table);
  const throttle = deps.throttle ?? DEFAULT_THROTTLE;
  const keys = deps.signingKeys ?? new SigningKeys(keyStoreFor(deps.runtime), { now });
  const directory = new PlatformDirectory(doc, config.tables.platform);

  const app = createServiceApp({
    service: 'auth',
    logger,
    routesWithOwnBodyLimit: [TOKEN_PATH],
    corsOrigins: config.corsOrigins,
  });
  serveDocument(app, authDocument, { source: deps.documents, baseUrl: config.publicBaseUrl });
  discoveryRoutes(app, config.issuer, keys);
  tokenRoutes(app, tokenService(deps, { clients, keys, directory, throttle, now }));
  const guard = bearerAuth('auth', verifier);
  for (const path of ['/clients', '/clients/*', '/users', '/users/*', '/_info'])
    app.use(path, guard);
  serverInfoRoute(app, 'auth');
  clientRoutes(app, clients, now);
  userRoutes(app, new EnvironmentPersons(directory));
  return app;
}

/** The token endpoint's grants, composed from the configuration (static clients, the identity provider). */
function tokenService(
  deps: AuthAppDeps,
  parts: {
    clients: ClientStore;
    keys: SigningKeys;
    directory: PlatformDirectory;
    throttle: ThrottlePolicy;
    now: () => number;
  },
): TokenService {
  const { config, doc } = deps.runtime;
  const { clients, keys, directory, throttle, now } = parts;
  const authConfig = deps.authConfig ?? loadAuthConfig(config.auth.staticClients, config.stage);
  const persons: PersonGrantOptions = {
    keys,
    issuer: config.issuer,
    audience: config.audience,
    platformAudience: config.platform.audience,
    directory,
    usedTokens: new UsedTokenStore(doc, config.tables.auth),
    now,
  };
  const idp = config.platform.identityProvider;
  // Platform tokens (the subject of an exchange) are verified against this service's own published keys.
  const platformTokens = new TokenVerifier({
    issuer: config.issuer,
    audience: config.platform.audience,
    kind: 'platform',
    loadKeys: () => keys.publicKeySet(),
    now,
  });
  return new TokenService({
    clientCredentials: new ClientCredentialsGrant({
      clients,
      budgets: new ThrottleStore(doc, config.tables.auth, throttle),
      keys,
      staticClients: authConfig.clients,
      issuer: config.issuer,
      audience: config.audience,
      platformAudience: config.platform.audience,
      resources: authConfig.resources,
      throttle,
      now,
    }),
    idTokenExchange: new IdTokenExchange(persons, idp && new IdentityProvider(idp, now)),
    environmentToken: new EnvironmentTokenGrant(persons, platformTokens),
  });
}
