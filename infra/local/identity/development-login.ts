import type { LocalIdentityProvider } from './local-identity-provider.js';

/**
 * A development account logs in on a running local platform, as the environments guide (docs/guides/environments.md) does with curl: an ID token
 * from the local provider's password grant, exchanged at the platform's token endpoint (RFC 8693) for a platform
 * token. Throws with the endpoint's answer when either step refuses.
 */
export async function developmentLogin(
  baseUrl: string,
  idp: Pick<LocalIdentityProvider, 'issuer' | 'clientId' | 'accounts'>,
  email: string,
): Promise<string> {
  const account = idp.accounts.find((a) => a.email === email);
  if (!account) throw new Error(`no development account ${email}`);
  const idToken = await tokenField(
    fetch(`${idp.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        username: email,
        password: account.password,
        client_id: idp.clientId,
        scope: 'openid email',
      }),
    }),
    'id_token',
  );
  return tokenField(
    fetch(`${baseUrl}/api/auth/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: idToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      }),
    }),
    'access_token',
  );
}

async function tokenField(response: Promise<Response>, field: string): Promise<string> {
  const res = await response;
  const body = (await res.json()) as Record<string, unknown>;
  const value = body[field];
  if (res.status !== 200 || typeof value !== 'string')
    throw new Error(`login refused: ${res.status} ${String(body.error_description ?? body.error)}`);
  return value;
}
