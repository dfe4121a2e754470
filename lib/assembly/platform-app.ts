import type { Hono } from 'hono';
import { SigningKeys } from '../auth/keys/signing-keys.js';
import { keyStoreFor } from '../auth/keys/vault-for-runtime.js';
import type { HonoTypes } from '../http/types.js';
import { createPlatformApp, type PlatformAppDeps } from '../platform/app.js';
import { environmentProbesFor } from './environment-probes.js';

export type AssembledPlatformDeps = Omit<PlatformAppDeps, 'signingKeys' | 'environmentProbes'> &
  Partial<Pick<PlatformAppDeps, 'signingKeys' | 'environmentProbes'>>;

/**
 * The platform service with what it takes from the others: auth's signing keys (personal tokens) and every
 * service's probe of an environment's contents. Assembled here so that the platform service's folder imports no service
 * that imports it back (auth reads the platform service's directory).
 */
export function assemblePlatformApp(deps: AssembledPlatformDeps): Hono<HonoTypes> {
  return createPlatformApp({
    ...deps,
    signingKeys:
      deps.signingKeys ?? new SigningKeys(keyStoreFor(deps.runtime), { now: deps.now ?? Date.now }),
    environmentProbes: deps.environmentProbes ?? environmentProbesFor(deps.runtime),
  });
}
