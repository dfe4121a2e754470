import type { KMSClient } from '@aws-sdk/client-kms';
import { lazyLoad } from '../../async/lazy-load.js';
import type { ServiceRuntime } from '../../runtime/runtime.js';
import { KeyStore } from '../store/key-store.js';
import { KmsEnvelopeVault } from './kms-envelope-vault.js';
import { CLEAR_KEYS, type PrivateKeyVault } from './private-key-vault.js';

/** KMS envelope encryption when the configuration names a KMS key (the deployed stack), clear keys otherwise. */
export function privateKeyVault(runtime: Pick<ServiceRuntime, 'config'>): PrivateKeyVault {
  const keyId = runtime.config.signingKeyKmsKeyId;
  if (keyId === undefined) return CLEAR_KEYS;
  return new KmsEnvelopeVault(lazyKmsClient(runtime.config.awsRegion), keyId);
}

/** The KMS client, module loaded and client built at the first call (kms-envelope-vault.ts says why), then kept. */
function lazyKmsClient(region: string): () => Promise<KMSClient> {
  return lazyLoad(() =>
    import('@aws-sdk/client-kms').then(({ KMSClient }) => new KMSClient({ region })),
  );
}

/** The signing key store of a service runtime: the auth table, sealed as the configuration says. */
export function keyStoreFor(runtime: Pick<ServiceRuntime, 'config' | 'doc'>): KeyStore {
  return new KeyStore(runtime.doc, runtime.config.tables.auth, privateKeyVault(runtime));
}
