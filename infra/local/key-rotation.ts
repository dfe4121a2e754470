import { rotateSigningKeys } from '../../lib/auth/keys/signing-keys.js';
import type { KeyStore } from '../../lib/auth/store/key-store.js';
import type { Logger } from '../../lib/observability/logger.js';
import { startScheduleTimer } from './schedule-timer.js';

export interface KeyRotationOptions {
  store: KeyStore;
  /** How often a step runs: the stack's schedule is hourly. */
  intervalMs: number;
  /** KEY_MIN_PUBLISH_SECONDS: how long a next key is published before it may sign. */
  minNextAgeSeconds: number;
  logger: Logger;
  now?: () => number;
}

/**
 * The local stand-in for the stack's scheduled `rotate-keys` function: the same idempotent step, on a timer
 * that does not keep the process alive. Returns a stop function that waits for a step in progress.
 */
export function startKeyRotation(options: KeyRotationOptions): () => Promise<void> {
  const now = options.now ?? Date.now;
  return startScheduleTimer({
    intervalMs: options.intervalMs,
    logger: options.logger,
    failure: 'key rotation failed',
    run: async () => {
      const result = await rotateSigningKeys(options.store, {
        nowMs: now(),
        minNextAgeSeconds: options.minNextAgeSeconds,
      });
      options.logger.log('info', 'key rotation', { ...result });
    },
  });
}
