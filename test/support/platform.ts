import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import {
  type PlatformOptions,
  type RunningPlatform,
  startPlatform,
} from '../../infra/local/platform.js';
import { createDocumentClient } from '../../lib/dynamo/client.js';
import type { SharedPlatformFile } from '../setup/shared-platform.js';
import { HOOK_LIMIT_MS, WAIT_LIMIT_MS } from './time-scale.js';

/**
 * The local platform on a free loopback port, with the run's function bundles and silent logs, on the run's
 * platforms' DynamoDB Local (unless the options name a data directory or an emulator) with an access key id of
 * its own: that emulator keeps one in-memory database per key id, so the platform has tables, streams and their
 * cost to itself, as on an emulator of its own, without starting a JVM (about 1.5 s of CPU each, and a cold
 * JIT for all of its work).
 *
 * Not on the in-process suites' emulator, whose one database (`-sharedDb`) collects the whole run's writes: a
 * platform's stream pollers call GetRecords on every shard five times a second, and DynamoDB Local's GetRecords
 * costs time in proportion to every stream record its database holds, of every table (measured: 2 ms on a fresh
 * one, 90 ms after 20,000 writes elsewhere; in a database of another key id, no change).
 */
export function startTestPlatform(
  options: Partial<PlatformOptions> = {},
): Promise<RunningPlatform> {
  const ownDatabase =
    options.dataDir || options.dynamoEndpoint
      ? {}
      : {
          dynamoEndpoint: inject('platformsDynamoEndpoint'),
          dynamoLocalAccessKeyId: `platform${randomBytes(6).toString('hex')}`,
        };
  return startPlatform({
    port: 0,
    functionBundles: inject('functionBundles'),
    resourcePrefix: `p${randomBytes(5).toString('hex')}-`,
    ...ownDatabase,
    ...options,
    variables: { LOG_LEVEL: 'silent', ...options.variables },
  });
}

/** A document client on a running platform's own DynamoDB database (its endpoint and key id). */
export function platformDocumentClient(
  platform: Pick<RunningPlatform, 'variables'>,
  options: { bigintNumbers?: boolean } = {},
): DynamoDBDocumentClient {
  return createDocumentClient(
    {
      endpoint: platform.variables.DYNAMODB_ENDPOINT!,
      region: 'us-east-1',
      ...(platform.variables.DYNAMODB_LOCAL_ACCESS_KEY_ID
        ? { localAccessKeyId: platform.variables.DYNAMODB_LOCAL_ACCESS_KEY_ID }
        : {}),
    },
    options,
  );
}

export type SharedPlatform = Pick<RunningPlatform, 'baseUrl' | 'variables' | 's3' | 'stop'>;

/**
 * The run's shared default platform (test/setup/shared-platform.ts), for a file that needs nothing but a running
 * default platform: its URL, variables and S3 emulator, once it has started (the run starts it in the
 * background; waited for as long as a hook may take). `stop` leaves it running (the run stops it). A file that
 * restarts, kills, reconfigures or counts a platform's metrics starts its own (`startTestPlatform`).
 */
export async function sharedTestPlatform(): Promise<SharedPlatform> {
  const file = inject('sharedPlatformFile');
  const described = await until(
    "the run's shared platform started",
    () => {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as SharedPlatformFile;
      } catch {
        return undefined; // not written yet (or being written)
      }
    },
    HOOK_LIMIT_MS,
  );
  if ('error' in described)
    throw new Error(`the run's shared platform did not start: ${described.error}`);
  return { ...described, stop: async () => {} };
}

/** A token for the local test client (every scope) from a running platform's token endpoint. */
export async function testClientToken(platform: Pick<RunningPlatform, 'baseUrl'>): Promise<string> {
  const res = await fetch(`${platform.baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'local-dev',
      client_secret: 'local-dev-secret',
    }),
  });
  if (res.status !== 200)
    throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A JSON call to a running platform with the test client's token: status and parsed body. */
export async function platformCall(
  platform: Pick<RunningPlatform, 'baseUrl'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await testClientToken(platform)}`,
      'content-type': 'application/json',
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Polls `probe` until it returns a value (bounded: a failure here is a hang, not a timing assertion). */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = WAIT_LIMIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
