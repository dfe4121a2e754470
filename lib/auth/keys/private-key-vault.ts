import type { JWK } from 'jose';

/**
 * The KMS encryption context's `purpose` of every signing key's data key (with the key's `kid`); the stack's key
 * policy allows the key's use only with it.
 */
export const SIGNING_KEY_PURPOSE = 'jwt-signing-key';

/** A private key sealed under AWS KMS by envelope encryption (lib/auth/keys/kms-envelope-vault.ts). */
export interface SealedPrivateKey {
  scheme: 'kms-envelope-v1';
  /** The KMS key that encrypted the data key (its ARN, as KMS reports it). */
  kmsKeyId: string;
  /** The data key encrypted by KMS, base64. */
  dataKey: string;
  /** AES-256-GCM over the private JWK's JSON: nonce, tag and ciphertext, base64. */
  iv: string;
  tag: string;
  ciphertext: string;
}

/** How a private key is held in its table item: in clear (local only) or sealed. */
export type StoredPrivateKey =
  | { jwk: JWK; sealed?: never }
  | { sealed: SealedPrivateKey; jwk?: never };

/**
 * Keeps private signing keys out of reach of whoever can read the auth table. The key store seals a key before
 * it writes it and opens it after it reads it; what a vault does in between is its own business.
 */
export interface PrivateKeyVault {
  seal(kid: string, jwk: JWK): Promise<StoredPrivateKey>;
  open(kid: string, stored: StoredPrivateKey): Promise<JWK>;
}

/** A private key that cannot be opened: missing KMS configuration, KMS refusing or failing, or a tampered item. */
export class PrivateKeyUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PrivateKeyUnavailableError';
  }
}

/**
 * Local keys (`npm start`, tests without a KMS key): the private JWK in clear, as before KMS. Never used by the
 * deployed stack, which always sets SIGNING_KEY_KMS_KEY_ID.
 */
export const CLEAR_KEYS: PrivateKeyVault = {
  seal: async (_kid, jwk) => ({ jwk }),
  open: async (kid, stored) => {
    if (stored.jwk) return stored.jwk;
    throw new PrivateKeyUnavailableError(
      `private key ${kid} is sealed under KMS, but SIGNING_KEY_KMS_KEY_ID is not set`,
    );
  },
};
