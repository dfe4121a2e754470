import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, type JWK, SignJWT } from 'jose';
import type { LocalIdentityConfig } from '../../infra/local/identity/config.js';
import { developmentLogin } from '../../infra/local/identity/development-login.js';
import {
  isIdentityPath,
  type LocalIdentityProvider,
  startLocalIdentityProvider,
} from '../../infra/local/identity/local-identity-provider.js';
import { newSigningKey } from '../../infra/local/identity/provider.js';
import type { RunningPlatform } from '../../infra/local/platform.js';

export const IDP_CLIENT_ID = 'platform-local';
export const REDIRECT_URI = 'http://127.0.0.1/callback';

/** A development account of the test provider. */
export const account = (
  email: string,
  extra: Partial<LocalIdentityConfig['accounts'][number]> = {},
) => ({
  email,
  password: `${email.split('@')[0]}-password`,
  name: email.split('@')[0]!,
  emailVerified: true,
  platformAdmin: false,
  ...extra,
});

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  /** The provider's private signing key: tests forge ID tokens with chosen claims. */
  signingKey: JWK;
  /** An ID token from the development password grant. */
  idToken(email: string, password?: string): Promise<string>;
  /** An ID token through the real authorization-code flow with PKCE and the provider's login page. */
  idTokenByCodeFlow(email: string, password?: string): Promise<string>;
  /** Signs claims with `key` (default: the provider's own), its header naming the provider's key id. */
  sign(claims: Record<string, unknown>, key?: JWK): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The local identity provider (the one `npm start` runs) on its own loopback HTTP server, for the auth service's
 * tests: the auth app fetches its discovery document and keys over real HTTP, as from any provider.
 */
export async function startTestIdentityProvider(
  accounts: LocalIdentityConfig['accounts'],
): Promise<TestIdentityProvider> {
  let idp: LocalIdentityProvider | undefined;
  const server: Server = createServer((req, res) => {
    if (idp && isIdentityPath(req.url)) return idp.handle(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signingKey = {
    ...(await newSigningKey()),
    kid: `test-idp-${randomBytes(4).toString('hex')}`,
  };
  const config = { clientId: IDP_CLIENT_ID, redirectUris: [REDIRECT_URI], accounts };
  idp = await startLocalIdentityProvider(base, config, { signingKey });
  const provider = idp;
  const passwordOf = (email: string) => accounts.find((a) => a.email === email)?.password ?? '';
  return {
    issuer: provider.issuer,
    clientId: IDP_CLIENT_ID,
    signingKey,
    async idToken(email, password = passwordOf(email)) {
      const res = await fetch(`${provider.issuer}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'password',
          username: email,
          password,
          client_id: IDP_CLIENT_ID,
          scope: 'openid email profile',
        }),
      });
      const body = (await res.json()) as { id_token?: string };
      if (res.status !== 200 || !body.id_token)
        throw new Error(`password grant failed: ${res.status} ${JSON.stringify(body)}`);
      return body.id_token;
    },
    idTokenByCodeFlow: (email, password = passwordOf(email)) =>
      codeFlow(provider.issuer, email, password),
    async sign(claims, key = signingKey) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: key.kid ?? signingKey.kid!, typ: 'JWT' })
        .sign(await importJWK(key, 'ES256'));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The authorization-code flow with PKCE, the browser's part driven by `browserLogin`. */
async function codeFlow(issuer: string, email: string, password: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = 'http://127.0.0.1:49152/callback';
  const authorization = new URL(
    `${issuer}/auth?${new URLSearchParams({
      client_id: IDP_CLIENT_ID,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'test-state',
    })}`,
  );
  const callback = await browserLogin(authorization, email, password, redirectUri);
  const token = await fetch(`${issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: IDP_CLIENT_ID,
      code_verifier: verifier,
    }),
  });
  return ((await token.json()) as { id_token: string }).id_token;
}

/**
 * What a browser does between an authorization URL and the redirect back to the client, with a cookie jar: the
 * provider's login page, its form posted, the redirects followed. Answers the callback URL (with the code).
 */
export async function browserLogin(
  authorization: URL,
  email: string,
  password: string,
  redirectUri: string,
): Promise<URL> {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(url, authorization), {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  };
  const interaction = (await go(authorization.href)).headers.get('location')!;
  const form = await go(interaction);
  if (!(await form.text()).includes('name="password"')) throw new Error('no login form');
  let res = await go(`${interaction}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }).toString(),
  });
  if (res.status !== 303) throw new Error(`login refused: ${res.status}`);
  let location = res.headers.get('location')!;
  while (!location.startsWith(redirectUri)) {
    res = await go(location);
    location = res.headers.get('location') ?? '';
    if (!location) throw new Error(`the flow stopped at ${res.status}`);
  }
  return new URL(location);
}

/** A development person logs in on a running local platform (password grant, then token exchange). */
export async function platformLogin(platform: RunningPlatform, email: string): Promise<string> {
  if (!platform.identityProvider) throw new Error('the platform runs no local identity provider');
  return developmentLogin(platform.baseUrl, platform.identityProvider, email);
}
