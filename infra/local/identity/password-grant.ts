import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { LocalAccounts } from './accounts.js';

/** The grant's name at the provider's token endpoint (RFC 6749 §4.3's resource owner password credentials). */
export const PASSWORD_GRANT = 'password';
const DEFAULT_SCOPE = 'openid email';

/**
 * DEVELOPMENT ONLY: a development account's email and password for an ID token, in one request, so scripts and the
 * environments guide (docs/guides/environments.md) can log in with curl:
 *
 *   curl -s -d grant_type=password -d username=dev@example.com -d password=dev-password \
 *     -d client_id=platform-local -d scope='openid email' $BASE/_idp/token   →  {"id_token": ...}
 *
 * OAuth 2.1 drops this grant for good reasons (the client sees the password); it exists here because the provider
 * itself is a local test double, never a deployment's.
 */
export function registerPasswordGrant(
  provider: Provider,
  accounts: LocalAccounts,
  options: { scopes: readonly string[]; idTokenTtlSeconds: number },
): void {
  provider.registerGrantType(
    PASSWORD_GRANT,
    async (ctx) => {
      const { username, password, scope } = ctx.oidc.params as Record<string, unknown>;
      if (typeof username !== 'string' || typeof password !== 'string')
        throw new errors.InvalidRequest('username and password are required');
      const scopes = new Set((typeof scope === 'string' ? scope : DEFAULT_SCOPE).split(' '));
      if (!scopes.has('openid'))
        throw new errors.InvalidScope('this grant issues ID tokens: include openid', 'openid');
      const unknown = [...scopes].filter((s) => !options.scopes.includes(s));
      if (unknown.length > 0) throw new errors.InvalidScope('scope not allowed', unknown.join(' '));
      const login = accounts.authenticate(username, password);
      if (!login) throw new errors.InvalidGrant('wrong username or password');
      const idToken = new ctx.oidc.provider.IdToken(accounts.claims(login.subject)!, { ctx });
      // The scope decides which claims the ID token carries (email, email_verified; name with `profile`).
      (idToken as unknown as { scope: string }).scope = [...scopes].join(' ');
      ctx.body = {
        id_token: await idToken.issue({ use: 'idtoken' }),
        expires_in: options.idTokenTtlSeconds,
        scope: [...scopes].join(' '),
      };
    },
    ['username', 'password', 'scope'],
  );
}
