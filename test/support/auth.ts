import type { Hono } from 'hono';
import { type AuthAppDeps, createAuthApp } from '../../lib/auth/app.js';
import { type AuthFileConfig, parseAuthConfig } from '../../lib/auth/domain/static-clients.js';
import type { HonoTypes } from '../../lib/http/types.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';

/** Static clients used across auth tests: an admin with every scope and a ledger reader. */
export const ADMIN = { id: 'admin', secret: 'admin-secret-0123456789' };
export const READER = { id: 'reader', secret: 'reader-secret-0123456789' };

export const TEST_AUTH_CONFIG: AuthFileConfig = parseAuthConfig(
  JSON.stringify({
    clients: [
      { id: ADMIN.id, secrets: [ADMIN.secret] },
      {
        id: READER.id,
        secrets: [READER.secret],
        scopes: ['ledger:read', 'auth:read'],
        accessTokenLifetime: 120,
      },
    ],
    resources: ['https://other.example/api'],
  }),
  'test',
  {},
  'local',
);

export function authApp(
  runtime: ServiceRuntime,
  overrides: Partial<AuthAppDeps> = {},
): Hono<HonoTypes> {
  return createAuthApp({
    runtime,
    documents: generatedDocuments,
    authConfig: TEST_AUTH_CONFIG,
    ...overrides,
  });
}

export function form(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function basic(id: string, secret: string): string {
  return (
    'Basic ' +
    Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')
  );
}

/** A token for a static client through the real token endpoint. */
export async function tokenFor(
  app: Hono<HonoTypes>,
  client: { id: string; secret: string },
  scope?: string,
): Promise<string> {
  const res = await app.request('/api/auth/oauth/token', {
    method: 'POST',
    headers: FORM,
    body: form({
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: client.secret,
      ...(scope ? { scope } : {}),
    }),
  });
  if (res.status !== 200)
    throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
