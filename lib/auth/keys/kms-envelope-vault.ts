import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { JWK } from 'jose';
import {
  PrivateKeyUnavailableError,
  type PrivateKeyVault,
  SIGNING_KEY_PURPOSE,
  type StoredPrivateKey,
} from './private-key-vault.js';

const CIPHER = 'aes-256-gcm';

/**
 * Envelope encryption of private signing keys under one symmetric KMS key: each private JWK is encrypted locally
 * (AES-256-GCM) with a data key of its own, and only the data key, encrypted by KMS, is stored beside it. Sealing
 * costs one GenerateDataKey per new key (rotation: about once a day); opening one Decrypt per container and key.
 * The key id is both KMS encryption context and GCM additional data, so an item copied under another key id
 * does not open. Legacy clear items (written before KMS was configured) still open, so switching KMS on needs no
 * migration: rotation retires them within two rotations.
 *
 * The SDK's KMS module is imported at the first seal or open, not with this file: a container opens a key once,
 * at its first token, right before a KMS round trip, and most auth requests sign nothing (the module cost the auth
 * function's cold start about 2 ms, `npm run bench -- --only cold-start`). `kms` builds the client then.
 */
export class KmsEnvelopeVault implements PrivateKeyVault {
  constructor(
    private readonly kms: () => Promise<KMSClient>,
    private readonly kmsKeyId: string,
  ) {}

  async seal(kid: string, jwk: JWK): Promise<StoredPrivateKey> {
    const { Plaintext, CiphertextBlob, KeyId } = await this.call(
      'GenerateDataKey',
      kid,
      async () => {
        const [kms, { GenerateDataKeyCommand }] = await this.sdk();
        return await kms.send(
          new GenerateDataKeyCommand({
            KeyId: this.kmsKeyId,
            KeySpec: 'AES_256',
            EncryptionContext: context(kid),
          }),
        );
      },
    );
    if (!Plaintext || !CiphertextBlob)
      throw new PrivateKeyUnavailableError(
        `KMS GenerateDataKey for signing key ${kid} returned no data key`,
      );
    try {
      const iv = randomBytes(12);
      const cipher = createCipheriv(CIPHER, Plaintext, iv).setAAD(Buffer.from(kid, 'utf8'));
      const ciphertext = Buffer.concat([
        cipher.update(JSON.stringify(jwk), 'utf8'),
        cipher.final(),
      ]);
      return {
        sealed: {
          scheme: 'kms-envelope-v1',
          kmsKeyId: KeyId ?? this.kmsKeyId,
          dataKey: Buffer.from(CiphertextBlob).toString('base64'),
          iv: iv.toString('base64'),
          tag: cipher.getAuthTag().toString('base64'),
          ciphertext: ciphertext.toString('base64'),
        },
      };
    } finally {
      Plaintext.fill(0);
    }
  }

  async open(kid: string, stored: StoredPrivateKey): Promise<JWK> {
    if (stored.jwk) return stored.jwk;
    const { sealed } = stored;
    if (sealed.scheme !== 'kms-envelope-v1')
      throw new PrivateKeyUnavailableError(
        `private key ${kid}: unknown scheme ${String(sealed.scheme)}`,
      );
    const { Plaintext } = await this.call('Decrypt', kid, async () => {
      const [kms, { DecryptCommand }] = await this.sdk();
      return await kms.send(
        new DecryptCommand({
          KeyId: this.kmsKeyId,
          CiphertextBlob: Buffer.from(sealed.dataKey, 'base64'),
          EncryptionContext: context(kid),
        }),
      );
    });
    if (!Plaintext)
      throw new PrivateKeyUnavailableError(
        `KMS Decrypt for signing key ${kid} returned no data key`,
      );
    try {
      const decipher = createDecipheriv(CIPHER, Plaintext, Buffer.from(sealed.iv, 'base64'))
        .setAAD(Buffer.from(kid, 'utf8'))
        .setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const json = Buffer.concat([
        decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
        decipher.final(),
      ]).toString('utf8');
      return JSON.parse(json) as JWK;
    } catch (err) {
      throw new PrivateKeyUnavailableError(
        `private key ${kid} does not decrypt (tampered or misplaced item)`,
        { cause: err },
      );
    } finally {
      Plaintext.fill(0);
    }
  }

  private async sdk(): Promise<[KMSClient, typeof import('@aws-sdk/client-kms')]> {
    return await Promise.all([this.kms(), import('@aws-sdk/client-kms')]);
  }

  /** KMS failures (access denied, key disabled, throttling, network) become one error kind the service answers 503 to. */
  private async call<T>(operation: string, kid: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      const name = err instanceof Error ? err.name : 'Error';
      throw new PrivateKeyUnavailableError(
        `KMS ${operation} for signing key ${kid} failed: ${name}`,
        { cause: err },
      );
    }
  }
}

const context = (kid: string) => ({ purpose: SIGNING_KEY_PURPOSE, kid });
