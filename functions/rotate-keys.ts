import { KeyStore } from '../lib/auth/keys/key-store.js';
import { rotateSigningKeys } from '../lib/auth/keys/signing-keys.js';
import { createRuntime } from '../lib/platform/runtime.js';

const runtime = createRuntime(process.env);
const store = new KeyStore(runtime.doc, runtime.config.tables.auth);
/** A next key signs only after it has been published this long (default 24 h; API Gateway caches up to 2 h). */
const minNextAgeSeconds = Number(process.env.KEY_MIN_PUBLISH_SECONDS ?? 24 * 3600);

/** Scheduled (EventBridge): one rotation step. Idempotent and safe to run concurrently. */
export const handler = async () => {
  const result = await rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds });
  runtime.logger.log('info', 'key rotation', { ...result });
  return result;
};
