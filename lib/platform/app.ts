import type { Hono } from 'hono';
import { jwksTableLoader } from '../bearer/jwks-table-loader.js';
import { authenticate } from '../bearer/middleware.js';
import { TokenVerifier } from '../bearer/token-verifier.js';
import { createServiceApp } from '../http/service-app.js';
import type { HonoTypes } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import { serveDocument } from '../openapi/serve.js';
import type { ServiceRuntime } from '../runtime/runtime.js';
import type { TokenSigner } from '../tokens/mint.js';
import { OrganizationAccess } from './commands/access.js';
import type { EnvironmentProbe, PlatformServiceContext } from './commands/context.js';
import type { RandomText } from './domain/ids.js';
import { environmentRoutes } from './routes/environments.js';
import { memberRoutes } from './routes/members.js';
import { organizationRoutes } from './routes/organizations.js';
import { personalTokenRoutes } from './routes/personal-tokens.js';
import { platformDocument } from './routes/schemas.js';
import { PlatformDirectory } from './store/directory.js';
import { DirectoryWrites } from './store/directory-writes.js';

export type { EnvironmentProbe } from './commands/context.js';

export interface PlatformAppDeps {
  runtime: ServiceRuntime;
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  /** The auth service's signing keys (personal tokens are signed with them): given by the assembly. */
  signingKeys: TokenSigner;
  now?: () => number;
  /**
   * What an environment may still hold (ledgers, webhook configs, payments, clients): each service's store answers
   * for its own kind. An environment is deleted only when every probe finds nothing. Every service's, given by the
   * assembly (lib/assembly/environment-probes.ts); tests may give others.
   */
  environmentProbes: readonly EnvironmentProbe[];
  /** The random part of new ids (tests make it predictable, to provoke collisions). */
  random?: RandomText;
  /** Waits between attempts after lost races (tests make them instant). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The platform service (`/api/platform`): organizations, environments, members, personal tokens. The parts it
 * takes from the other services come from the assembly (lib/assembly/platform-app.ts), which its Lambda entry
 * (functions/platform.ts) and the local platform use. Platform tokens only:
 * an environment token is refused with 403, no token or a bad one with 401. Access follows the caller's role,
 * read live on every request.
 */
export function createPlatformApp(deps: PlatformAppDeps): Hono<HonoTypes> {
  const { runtime } = deps;
  const { config, doc, logger } = runtime;
  const now = deps.now ?? Date.now;
  const directory = new PlatformDirectory(doc, config.tables.platform);
  const ctx: PlatformServiceContext = {
    directory,
    writes: new DirectoryWrites(doc, config.tables.platform, {
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
    }),
    access: new OrganizationAccess(directory),
    probes: deps.environmentProbes,
    tokens: {
      signer: deps.signingKeys,
      issuer: config.issuer,
      audience: config.audience,
    },
    now,
    ...(deps.random ? { random: deps.random } : {}),
  };
  const verifier = new TokenVerifier({
    kind: 'platform',
    issuer: config.issuer,
    audience: config.platform.audience,
    environmentAudience: config.audience,
    loadKeys: jwksTableLoader(doc, config.tables.auth),
    now,
  });
  const defaults = ensureDefaultsOnce(directory, config.platform.admins, now);

  const app = createServiceApp({ service: 'platform', logger, corsOrigins: config.corsOrigins });
  serveDocument(app, platformDocument, { source: deps.documents, baseUrl: config.publicBaseUrl });
  app.use('*', async (c, next) => {
    const principal = await authenticate(c, verifier);
    // The request's log line names who made it (never the token).
    c.get('logFields').subject = principal.subject;
    await defaults();
    await next();
  });
  organizationRoutes(app, ctx);
  environmentRoutes(app, ctx);
  memberRoutes(app, ctx);
  personalTokenRoutes(app, ctx);
  return app;
}

/**
 * The default organization and environment (docs/decisions/tenancy.md), written before the container's first request is
 * served, once: the promise is kept, and dropped after a failure so the next request tries again.
 */
function ensureDefaultsOnce(
  directory: PlatformDirectory,
  admins: readonly string[],
  now: () => number,
): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= directory
      .ensureDefaults(admins, new Date(now()).toISOString())
      .then(() => undefined)
      .catch((err: unknown) => {
        done = undefined;
        throw err;
      });
    return done;
  };
}
