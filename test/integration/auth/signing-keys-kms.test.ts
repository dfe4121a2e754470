import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  type DecryptCommandInput,
  GenerateDataKeyCommand,
  type GenerateDataKeyCommandInput,
  KMSClient,
  KMSInvalidStateException,
} from '@aws-sdk/client-kms';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../../lib/auth/keys/generate.js';
import { rotateSigningKeys } from '../../../lib/auth/keys/signing-keys.js';
import { keyStoreFor } from '../../../lib/auth/keys/vault-for-runtime.js';
import { createLogger } from '../../../lib/observability/logger.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, FORM, form } from '../../support/auth.js';
import { TEST_BASE_URL, testTables } from '../../support/tables.js';

/**
 * The KMS path of the signing keys against DynamoDB Local, with KMS itself stood in by aws-sdk-client-mock (no
 * call leaves the machine). The stand-in is a faithful small KMS: data keys are wrapped under a secret of its own
 * with the encryption context as additional data, so a Decrypt with another context or key id fails as KMS's does.
 */
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/0f0e0d0c-0b0a-4909-8807-060504030201';
const kms = mockClient(KMSClient);
const wrapKey = randomBytes(32);

function fakeKms() {
  const aad = (keyId: string | undefined, context: Record<string, string> | undefined) =>
    Buffer.from(JSON.stringify([keyId, context]));
  kms.on(GenerateDataKeyCommand).callsFake((input: GenerateDataKeyCommandInput) => {
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', wrapKey, iv).setAAD(
      aad(input.KeyId, input.EncryptionContext),
    );
    const wrapped = Buffer.concat([
      iv,
      cipher.update(plaintext),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return {
      KeyId: KEY_ARN,
      Plaintext: new Uint8Array(plaintext),
      CiphertextBlob: new Uint8Array(wrapped),
    };
  });
  kms.on(DecryptCommand).callsFake((input: DecryptCommandInput) => {
    const blob = Buffer.from(input.CiphertextBlob!);
    const decipher = createDecipheriv('aes-256-gcm', wrapKey, blob.subarray(0, 12)).setAAD(
      aad(input.KeyId, input.EncryptionContext),
    );
    decipher.setAuthTag(blob.subarray(blob.length - 16));
    try {
      return {
        KeyId: KEY_ARN,
        Plaintext: new Uint8Array(
          Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]),
        ),
      };
    } catch {
      throw Object.assign(new Error('invalid ciphertext'), { name: 'InvalidCiphertextException' });
    }
  });
}

let runtime: ServiceRuntime;
let lines: Array<Record<string, unknown>>;

beforeEach(async () => {
  ({ runtime } = await testTables({ SIGNING_KEY_KMS_KEY_ID: KEY_ARN }));
  lines = [];
  runtime = {
    ...runtime,
    logger: createLogger('info', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
  };
  kms.reset();
  fakeKms();
});
afterAll(() => kms.restore());

const fastKeys = (now: string) => generateSigningKey(now, 'ES256');
const tokenRequest = (app: ReturnType<typeof authApp>) =>
  app.request('/api/auth/oauth/token', {
    method: 'POST',
    headers: FORM,
    body: form({
      grant_type: 'client_credentials',
      client_id: ADMIN.id,
      client_secret: ADMIN.secret,
    }),
  });

async function authItems() {
  const { Items = [] } = await runtime.doc.send(
    new ScanCommand({ TableName: runtime.config.tables.auth }),
  );
  return Items.filter((i) => !String(i.pk).startsWith('THROTTLE#'));
}

/** Any private RSA or EC parameter anywhere in the table means a key was written in clear. */
const PRIVATE_MEMBER = /"(d|p|q|dp|dq|qi)":/;

describe('signing keys under KMS envelope encryption', () => {
  it('reads SIGNING_KEY_KMS_KEY_ID once into the configuration', () => {
    expect(runtime.config.signingKeyKmsKeyId).toBe(KEY_ARN);
  });

  it('seals both first keys with a data key each (the configured key, purpose and kid as context) and stores nothing in clear', async () => {
    const app = authApp(runtime);
    const res = await tokenRequest(app);
    expect(res.status).toBe(200);

    const items = await authItems();
    const privates = items.filter((i) => String(i.pk).startsWith('SIGNING_KEY#'));
    expect(privates).toHaveLength(2);
    expect(JSON.stringify(items)).not.toMatch(PRIVATE_MEMBER);
    const kids = privates.map((i) => String(i.pk).slice('SIGNING_KEY#'.length)).sort();
    for (const item of privates) {
      expect(item).not.toHaveProperty('jwk');
      expect(Object.keys(item.sealed as object).sort()).toEqual([
        'ciphertext',
        'dataKey',
        'iv',
        'kmsKeyId',
        'scheme',
        'tag',
      ]);
      expect(item.sealed).toMatchObject({ scheme: 'kms-envelope-v1', kmsKeyId: KEY_ARN });
    }
    const generated = kms.commandCalls(GenerateDataKeyCommand).map((c) => c.args[0].input);
    expect(generated.map((i) => i.EncryptionContext!.kid).sort()).toEqual(kids);
    for (const input of generated)
      expect(input).toEqual({
        KeyId: KEY_ARN,
        KeySpec: 'AES_256',
        EncryptionContext: { purpose: 'jwt-signing-key', kid: input.EncryptionContext!.kid },
      });

    // The token verifies against the published set.
    const { access_token } = (await res.json()) as { access_token: string };
    const jwks = (await (await app.request('/api/auth/keys')).json()) as Parameters<
      typeof createLocalJWKSet
    >[0];
    const { payload, protectedHeader } = await jwtVerify(access_token, createLocalJWKSet(jwks), {
      issuer: `${TEST_BASE_URL}/api/auth`,
    });
    expect(payload.client_id).toBe(ADMIN.id);
    // Only the current key was ever opened.
    const decrypts = kms.commandCalls(DecryptCommand).map((c) => c.args[0].input);
    expect(decrypts.map((i) => [i.KeyId, i.EncryptionContext])).toEqual([
      [KEY_ARN, { purpose: 'jwt-signing-key', kid: protectedHeader.kid }],
    ]);
  });

  it('decrypts the current key once per container, however often the key set is re-read', async () => {
    const { SigningKeys } = await import('../../../lib/auth/keys/signing-keys.js');
    const first = authApp(runtime);
    expect((await tokenRequest(first)).status).toBe(200);
    kms.resetHistory();
    // A second container: the set already exists; it re-reads the set on every request (no cache) but opens the key once.
    const second = authApp(runtime, {
      signingKeys: new SigningKeys(keyStoreFor(runtime), { cacheTtlMs: 0 }),
    });
    for (let i = 0; i < 5; i++) expect((await tokenRequest(second)).status).toBe(200);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
    expect(kms.commandCalls(GenerateDataKeyCommand)).toHaveLength(0);
  });

  it('answers a clear 503 and writes no key when KMS refuses to generate a data key', async () => {
    kms
      .on(GenerateDataKeyCommand)
      .rejects(new KMSInvalidStateException({ message: 'key is disabled', $metadata: {} }));
    const app = authApp(runtime);
    const res = await tokenRequest(app);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'signing key unavailable, retry later',
    });
    expect(await authItems()).toEqual([]);
    const line = lines.find((l) => l.message === 'request')!;
    expect(line).toMatchObject({ level: 'ERROR', service: 'auth', status: 503 });
    expect(String(line.signingKeyError)).toMatch(
      /^KMS GenerateDataKey for signing key \S+ failed: KMSInvalidStateException$/,
    );
  });

  it('answers a clear 503 when KMS refuses to decrypt, and the key stays sealed', async () => {
    expect((await tokenRequest(authApp(runtime))).status).toBe(200);
    const before = await authItems();
    kms
      .on(DecryptCommand)
      .rejects(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' }));
    const res = await tokenRequest(authApp(runtime));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe('temporarily_unavailable');
    expect(await authItems()).toEqual(before);
    expect(lines.at(-1)!.signingKeyError).toMatch(
      /KMS Decrypt for signing key \S+ failed: AccessDeniedException$/,
    );
  });

  it('refuses a sealed key moved under another key id (the kid is bound to the ciphertext)', async () => {
    expect((await tokenRequest(authApp(runtime))).status).toBe(200);
    const privates = (await authItems()).filter((i) => String(i.pk).startsWith('SIGNING_KEY#'));
    const set = (await authItems()).find((i) => i.pk === 'JWKS')!;
    const current = (set.keys as Array<{ kid: string; status: string }>).find(
      (k) => k.status === 'current',
    )!.kid;
    const other = privates.find((i) => i.pk !== `SIGNING_KEY#${current}`)!;
    await runtime.doc.send(
      new UpdateCommand({
        TableName: runtime.config.tables.auth,
        Key: { pk: `SIGNING_KEY#${current}`, sk: 'PRIVATE' },
        UpdateExpression: 'SET sealed = :s',
        ExpressionAttributeValues: { ':s': other.sealed },
      }),
    );
    const res = await tokenRequest(authApp(runtime));
    expect(res.status).toBe(503);
  });

  it('rotation seals its new key under KMS, and writes nothing when KMS fails', async () => {
    const store = keyStoreFor(runtime);
    await rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds: 0, generate: fastKeys });
    const promoted = await rotateSigningKeys(store, {
      nowMs: Date.now(),
      minNextAgeSeconds: 0,
      generate: fastKeys,
    });
    expect(promoted.decision.action).toBe('promote');
    const afterRotation = await authItems();
    expect(afterRotation.filter((i) => String(i.pk).startsWith('SIGNING_KEY#'))).toHaveLength(3);
    expect(JSON.stringify(afterRotation)).not.toMatch(PRIVATE_MEMBER);
    expect(kms.commandCalls(GenerateDataKeyCommand)).toHaveLength(3);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);

    kms
      .on(GenerateDataKeyCommand)
      .rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(
      rotateSigningKeys(store, { nowMs: Date.now(), minNextAgeSeconds: 0, generate: fastKeys }),
    ).rejects.toThrow(/KMS GenerateDataKey for signing key \S+ failed: ThrottlingException/);
    expect(await authItems()).toEqual(afterRotation);
  });

  it('still opens a key written in clear before KMS was configured (rotation retires it)', async () => {
    const { runtime: clearRuntime } = await testTables();
    const clearApp = authApp(clearRuntime);
    expect((await tokenRequest(clearApp)).status).toBe(200);
    expect(kms.commandCalls(GenerateDataKeyCommand)).toHaveLength(0);
    // The same table, now with KMS configured.
    const sealedRuntime = {
      ...clearRuntime,
      config: { ...clearRuntime.config, signingKeyKmsKeyId: KEY_ARN },
    };
    expect((await tokenRequest(authApp(sealedRuntime))).status).toBe(200);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);
  });
});
