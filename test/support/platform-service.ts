import type { Hono } from 'hono';
import { assemblePlatformApp } from '../../lib/assembly/platform-app.js';
import { SigningKeys } from '../../lib/auth/keys/signing-keys.js';
import { keyStoreFor } from '../../lib/auth/keys/vault-for-runtime.js';
import type { HonoTypes } from '../../lib/http/types.js';
import type { Logger } from '../../lib/observability/logger.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import type { PlatformAppDeps } from '../../lib/platform/app.js';
import { personId } from '../../lib/platform/domain/directory.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import type { Role } from '../../lib/tokens/claims.js';
import { mintAccessToken } from '../../lib/tokens/mint.js';
import { testTables } from './tables.js';

/** The admin PLATFORM_ADMINS names in these tests: the `default` organization's first admin. */
export const ROOT = 'root@example.com';

export interface PlatformServiceCall {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/**
 * A platform service app on fresh tables, the signing keys it and the auth service share, and token makers: persons'
 * and platform-level clients' platform tokens, and environment tokens (refused here), all minted by the one
 * minting function with the keys the verifier trusts. Log lines are kept in `logs`.
 */
export async function platformServiceTestbed(
  options: Partial<Omit<PlatformAppDeps, 'runtime' | 'documents'>> & {
    variables?: NodeJS.ProcessEnv;
  } = {},
) {
  const { variables: extraVariables, ...deps } = options;
  const { runtime } = await testTables({ PLATFORM_ADMINS: ROOT, ...extraVariables });
  const logs: Array<Record<string, unknown>> = [];
  const logger: Logger = {
    log: (level, message, fields) => logs.push({ level, message, ...fields }),
  };
  const signingKeys = deps.signingKeys ?? new SigningKeys(keyStoreFor(runtime));
  const now = deps.now ?? Date.now;
  const app: Hono<HonoTypes> = assemblePlatformApp({
    runtime: { ...runtime, logger },
    documents: generatedDocuments,
    ...deps,
    signingKeys,
    now,
  });
  const { config } = runtime;

  const mint = (claims: {
    audience: string;
    subject: string;
    principalType: 'person' | 'client';
    email?: string;
    environment?: string;
    organization?: string;
    role?: Role;
    lifetimeSeconds?: number;
    nowMs?: number;
  }) =>
    mintAccessToken(signingKeys, {
      issuer: config.issuer,
      clientId: claims.principalType === 'person' ? 'test-login' : claims.subject,
      scopes: [],
      lifetimeSeconds: 900,
      nowMs: now(),
      ...claims,
    });

  /** A person's platform token (as the auth service's token exchange issues it). */
  const personToken = (email: string, extra: { lifetimeSeconds?: number; nowMs?: number } = {}) =>
    mint({
      audience: config.platform.audience,
      subject: personId(email),
      principalType: 'person',
      email,
      ...extra,
    });
  /** A platform-level client's platform token, for its one organization with its role. */
  const clientToken = (id: string, organization: string, role: Role) =>
    mint({
      audience: config.platform.audience,
      subject: id,
      principalType: 'client',
      organization,
      role,
    });
  /** An environment token (the API's audience): never accepted by the platform service. */
  const environmentToken = (environment = 'default') =>
    mint({ audience: config.audience, subject: 'svc', principalType: 'client', environment });

  const call = async (
    token: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<PlatformServiceCall> => {
    const res = await app.request(`/api/platform${path}`, {
      method,
      headers: {
        ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined
        ? { body: typeof body === 'string' ? body : JSON.stringify(body) }
        : {}),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  };

  /** Calls as the person `email` with a fresh platform token. */
  const as = (email: string) => async (method: string, path: string, body?: unknown) =>
    call(await personToken(email), method, path, body);

  // The key set exists before the first request: the verifier never caches an empty one.
  await signingKeys.signingKey();
  return {
    runtime: runtime as ServiceRuntime,
    app,
    logs,
    signingKeys,
    call,
    as,
    personToken,
    clientToken,
    environmentToken,
  };
}

export type PlatformServiceTestbed = Awaited<ReturnType<typeof platformServiceTestbed>>;
