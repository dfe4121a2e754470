import { rotateSigningKeys } from '../lib/auth/keys/signing-keys.js';
import { keyStoreFor } from '../lib/auth/keys/vault-for-runtime.js';
import { platformConfigFromVariables } from '../lib/config/env.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createRuntime } from '../lib/runtime/runtime.js';

const runtime = createRuntime(platformConfigFromVariables());
// Sealed under KMS when SIGNING_KEY_KMS_KEY_ID is set (always, in the stack).
const store = keyStoreFor(runtime);
/** A next key signs only after it has been published this long (KEY_MIN_PUBLISH_SECONDS, default 24 h). */
const minNextAgeSeconds = runtime.config.auth.keyMinPublishSeconds;

/** Scheduled (EventBridge): one rotation step. Idempotent and safe to run concurrently. */
export const handler = withObservability(async () => {
  const result = await rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds });
  runtime.logger.log('info', 'key rotation', { ...result });
  return result;
});
