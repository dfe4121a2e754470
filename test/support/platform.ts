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
