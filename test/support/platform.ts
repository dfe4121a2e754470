import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { startPlatform, type PlatformOptions, type RunningPlatform } from '../../infra/local/platform.js';

/**
 * The local platform on a free loopback port, on the run's shared DynamoDB Local, with its own tables and
 * queues (a random name prefix) and silent logs.
 */
export function startTestPlatform(options: Partial<PlatformOptions> = {}): Promise<RunningPlatform> {
  return startPlatform({
    port: 0,
    dynamoEndpoint: inject('dynamoEndpoint'),
    resourcePrefix: `p${randomBytes(5).toString('hex')}-`,
    ...options,
    env: { LOG_LEVEL: 'silent', ...options.env },
  });
}

/** A token for the local test client (every scope) from a running platform's token endpoint. */
export async function testClientToken(platform: RunningPlatform): Promise<string> {
  const res = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'local-dev', client_secret: 'local-dev-secret' }),
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
