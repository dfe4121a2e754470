import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { GeneratedKey } from './lifecycle.js';

/** RS256 by default: API Gateway JWT authorizers accept only RSA, and RFC 9068 requires RS256 support. */
export const SIGNING_ALG = 'RS256';

export async function generateSigningKey(
  now: string,
  alg: string = SIGNING_ALG,
): Promise<GeneratedKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, {
    extractable: true,
    modulusLength: 2048,
  });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    alg,
    publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
    createdAt: now,
  };
}
