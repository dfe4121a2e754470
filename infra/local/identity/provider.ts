import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { LocalAccounts } from './accounts.js';
import type { LocalIdentityConfig } from './config.js';
import { memoryStore } from './memory-store.js';
import { registerPasswordGrant } from './password-grant.js';

/** Where the provider answers on the local platform's server: its issuer is `<base URL>/_idp`. */
export const IDENTITY_MOUNT_PATH = '/_idp';
/** The scopes its client may ask for; `email` brings `email` and `email_verified` into the ID token. */
export const LOCAL_SCOPES = ['openid', 'email', 'profile'];
/** How long its ID tokens live: long enough to exchange, short enough that a leaked one soon stops working. */
const ID_TOKEN_TTL_SECONDS = 600;

/**
 * The local identity provider (oidc-provider, in this process): the development accounts log in with their
 * password on its own login page (authorization code + PKCE, infra/local/identity/login-page.ts) or, for
 * scripts, through the development-only password grant. Keys and sessions live in memory: a restart signs with a
 * new key, and ID tokens of the previous run no longer verify.
 */
export async function createLocalProvider(
  issuer: string,
  config: LocalIdentityConfig,
  accounts: LocalAccounts,
  /** Its ES256 private key (a JWK); by default a new one, so a restart invalidates the ID tokens it gave. */
  signingKey?: JWK,
): Promise<Provider> {
  signingKey ??= await newSigningKey();
  const provider = new Provider(issuer, {
    adapter: memoryStore(),
    clients: [
      {
        client_id: config.clientId,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: config.redirectUris,
        grant_types: ['authorization_code', 'password'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [signingKey] } as Configuration['jwks'],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: (_ctx, subject) => {
      const claims = accounts.claims(subject);
      return claims && { accountId: subject, claims: () => ({ ...claims, sub: subject }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: LOCAL_SCOPES,
    // ID tokens carry the scope's claims (email) even when an access token is issued beside them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: {
      url: (_ctx: KoaContextWithOIDC, interaction) =>
        `${IDENTITY_MOUNT_PATH}/interaction/${interaction.uid}`,
    },
    pkce: { required: () => true },
    // Sessions and grants last a working day; a login page left open, ten minutes.
    ttl: {
      IdToken: ID_TOKEN_TTL_SECONDS,
      AccessToken: ID_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: 8 * 3600,
    },
  });
  registerPasswordGrant(provider, accounts, {
    scopes: LOCAL_SCOPES,
    idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS,
  });
  return provider;
}

/** An ES256 key pair's private JWK, as the provider signs with it. */
export async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig' };
}
