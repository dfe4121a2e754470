import { SigningKeys } from '../../lib/auth/keys/signing-keys.js';
import { keyStoreFor } from '../../lib/auth/keys/vault-for-runtime.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { mintAccessToken } from '../../lib/tokens/mint.js';
import { ALL_SCOPES } from '../../lib/tokens/scopes.js';

const keys = new WeakMap<ServiceRuntime, SigningKeys>();

/**
 * An environment token for `environment`, signed with the auth table's current key (the key set the services'
 * verifier loads, as the auth service's own token endpoint signs): the token a client of that environment gets.
 */
export async function environmentToken(
  runtime: ServiceRuntime,
  environment: string,
  scopes: readonly string[] = ALL_SCOPES,
): Promise<string> {
  let signer = keys.get(runtime);
  if (!signer) {
    signer = new SigningKeys(keyStoreFor(runtime));
    keys.set(runtime, signer);
  }
  return mintAccessToken(signer, {
    issuer: runtime.config.issuer,
    audience: runtime.config.audience,
    subject: `client-of-${environment}`,
    clientId: `client-of-${environment}`,
    scopes,
    principalType: 'client',
    environment,
    lifetimeSeconds: 600,
    nowMs: Date.now(),
  });
}
