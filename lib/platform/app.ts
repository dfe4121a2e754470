import { Hono } from 'hono';
import type { SigningKeys } from '../auth/keys/signing-keys.js';
import type { AppEnv } from '../http/types.js';
import type { DocumentSource } from '../openapi/document-source.js';
import type { ServiceRuntime } from '../runtime/runtime.js';

export interface PlatformAppDeps {
  runtime: ServiceRuntime;
  /** Where its OpenAPI document comes from (lib/openapi/document-source.ts). */
  documents: DocumentSource;
  /** The auth service's signing keys (personal tokens are signed with them); by default from the auth table. */
  signingKeys?: SigningKeys;
  now?: () => number;
}

/**
 * The platform service (`/api/platform`): organizations, environments, members, personal tokens. Its one
 * composition, used by its Lambda entry (functions/platform.ts) and the local platform.
 *
 * Stand-in until the service lands: every route answers 501.
 */
export function createPlatformApp(_deps: PlatformAppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>().all('*', (c) =>
    c.json(
      { errorCode: 'NOT_IMPLEMENTED', errorMessage: 'the platform service is not built yet' },
      501,
    ),
  );
}
