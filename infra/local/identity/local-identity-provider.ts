import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWK } from 'jose';
import { LocalAccounts } from './accounts.js';
import type { LocalAccount, LocalIdentityConfig } from './config.js';
import { handleLoginPage } from './login-page.js';
import { createLocalProvider, IDENTITY_MOUNT_PATH } from './provider.js';

/** The local identity provider, ready to be served beside the platform's own routes. */
export interface LocalIdentityProvider {
  /** `<base URL>/_idp`: IDENTITY_PROVIDER_ISSUER for the services. */
  issuer: string;
  /** IDENTITY_PROVIDER_CLIENT_ID. */
  clientId: string;
  accounts: readonly LocalAccount[];
  /** Serves a request whose path is under `/_idp` (see `isIdentityPath`). */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** Whether a request (its raw URL) is the identity provider's. */
export function isIdentityPath(url: string | undefined): boolean {
  if (url === undefined) return false;
  const rest = url.slice(IDENTITY_MOUNT_PATH.length);
  return url.startsWith(IDENTITY_MOUNT_PATH) && (rest === '' || rest[0] === '/' || rest[0] === '?');
}

/**
 * oidc-provider is a Koa app: it is mounted as Express mounts a sub-app, `req.url` without the mount path and
 * `req.originalUrl` with it, from which it builds the URLs it publishes (all under its issuer, `<base>/_idp`).
 * Our login page (the interaction routes its configuration names) is served first.
 */
export async function startLocalIdentityProvider(
  baseUrl: string,
  config: LocalIdentityConfig,
  options: { onError?: (err: unknown) => void; signingKey?: JWK } = {},
): Promise<LocalIdentityProvider> {
  const issuer = `${baseUrl}${IDENTITY_MOUNT_PATH}`;
  const accounts = new LocalAccounts(config.accounts);
  const provider = await createLocalProvider(issuer, config, accounts, options.signingKey);
  const onError = options.onError ?? (() => undefined);
  // Koa would print an unexpected error itself; the platform's logger says it instead.
  provider.on('server_error', (_ctx, err) => onError(err));
  const callback = provider.callback();
  return {
    issuer,
    clientId: config.clientId,
    accounts: config.accounts,
    handle(req, res) {
      void handleLoginPage(provider, accounts, req, res).then(
        (handled) => {
          if (handled) return;
          const url = req.url ?? IDENTITY_MOUNT_PATH;
          const rest = url.slice(IDENTITY_MOUNT_PATH.length);
          (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
          req.url = rest.startsWith('/') ? rest : `/${rest}`;
          void callback(req, res);
        },
        (err: unknown) => {
          onError(err);
          if (!res.headersSent) res.writeHead(500);
          res.end();
        },
      );
    },
  };
}
