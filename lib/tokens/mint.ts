import { randomBytes } from 'node:crypto';
import { type CryptoKey, SignJWT } from 'jose';
import { CLAIMS, type PrincipalType, type Role } from './claims.js';

/** A private key to sign with (lib/auth/keys/signing-keys.ts serves the current one). */
export interface SigningKey {
  kid: string;
  alg: string;
  key: CryptoKey | Uint8Array;
}

export interface TokenSigner {
  signingKey(): Promise<SigningKey>;
}

/** What one access token says. `environment` set: an environment token; unset: a platform token. */
export interface AccessTokenClaims {
  issuer: string;
  audience: string;
  subject: string;
  clientId: string;
  scopes: readonly string[];
  principalType: PrincipalType;
  environment?: string;
  email?: string;
  /** A platform-level client's organization and role (its platform tokens only). */
  organization?: string;
  role?: Role;
  /** `personal` for personal tokens. */
  tokenUse?: 'personal';
  lifetimeSeconds: number;
  nowMs: number;
}

/**
 * Signs one access token (RFC 9068: `typ` at+jwt, `iss sub aud exp iat nbf jti client_id scope`), the only
 * place tokens are minted: the auth service's grants and the platform's personal tokens both come here.
 */
export async function mintAccessToken(
  signer: TokenSigner,
  claims: AccessTokenClaims,
): Promise<string> {
  const { kid, alg, key } = await signer.signingKey();
  const iat = Math.floor(claims.nowMs / 1000);
  const payload: Record<string, string> = {
    client_id: claims.clientId,
    scope: claims.scopes.join(' '),
    [CLAIMS.principalType]: claims.principalType,
  };
  if (claims.environment !== undefined) payload[CLAIMS.environment] = claims.environment;
  if (claims.email !== undefined) payload[CLAIMS.email] = claims.email;
  if (claims.organization !== undefined) payload[CLAIMS.organization] = claims.organization;
  if (claims.role !== undefined) payload[CLAIMS.role] = claims.role;
  if (claims.tokenUse !== undefined) payload[CLAIMS.tokenUse] = claims.tokenUse;
  return new SignJWT(payload)
    .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .setIssuer(claims.issuer)
    .setSubject(claims.subject)
    .setAudience(claims.audience)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + claims.lifetimeSeconds)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(key);
}
