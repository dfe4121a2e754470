import { describe, expect, it } from 'vitest';
import { KEY_ADMIN_ACTIONS } from '../../infra/stacks/signing-key-encryption.js';
import { synthPlatform } from './synth.js';
import { render, templateReader } from './template-support.js';

const FUNCTIONS = [
  'auth',
  'ledger',
  'ledger-writer',
  'payments',
  'platform',
  'webhooks',
  'dispatch',
  'deliver',
  'rotate-keys',
];
const dev = templateReader(synthPlatform({ stage: 'dev' }).template);
const prod = templateReader(
  synthPlatform({ stage: 'prod', publicBaseUrl: 'https://api.example.com' }).template,
);

const signingKeyId = (reader: typeof dev) =>
  reader.logicalId('AWS::KMS::Key', (p) =>
    String(p.Description).includes('private JWT signing keys'),
  );
const roleOf = (reader: typeof dev, name: string) =>
  reader.fn(`platform-dev-${name}`).Role['Fn::GetAtt'][0] as string;

describe('the KMS key sealing the private signing keys', () => {
  it('is symmetric, with automatic rotation', () => {
    const key = dev.resources[signingKeyId(dev)]!.Properties;
    expect(key.EnableKeyRotation).toBe(true);
    expect(key.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key.KeyUsage ?? 'ENCRYPT_DECRYPT').toBe('ENCRYPT_DECRYPT');
  });

  it('has a key policy letting only the auth, rotate-keys and platform roles use it, for signing keys only; the account only administers it', () => {
    const statements = dev.resources[signingKeyId(dev)]!.Properties.KeyPolicy.Statement as Array<
      Record<string, any>
    >;
    const purpose = { StringEquals: { 'kms:EncryptionContext:purpose': 'jwt-signing-key' } };
    expect(statements).toEqual([
      {
        Sid: 'KeyAdministration',
        Effect: 'Allow',
        Principal: { AWS: expect.objectContaining({ 'Fn::Join': expect.any(Array) }) },
        Action: KEY_ADMIN_ACTIONS,
        Resource: '*',
      },
      {
        Sid: 'AuthFunctionSealsAndOpens',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::GetAtt': [roleOf(dev, 'auth'), 'Arn'] } },
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: '*',
        Condition: purpose,
      },
      {
        Sid: 'RotateKeysFunctionSeals',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::GetAtt': [roleOf(dev, 'rotate-keys'), 'Arn'] } },
        Action: 'kms:GenerateDataKey',
        Resource: '*',
        Condition: purpose,
      },
      // Personal tokens are signed with the current key: the platform service opens it, never seals one.
      {
        Sid: 'PlatformFunctionOpens',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::GetAtt': [roleOf(dev, 'platform'), 'Arn'] } },
        Action: 'kms:Decrypt',
        Resource: '*',
        Condition: purpose,
      },
    ]);
    expect(render(statements[0]!.Principal.AWS)).toBe(
      'arn:AWS::Partition:iam::AWS::AccountId:root',
    );
    // The administrators' actions include no cryptographic operation: no wildcard that could cover one either.
    for (const action of KEY_ADMIN_ACTIONS)
      expect(action).not.toMatch(/^kms:(\*|Decrypt|Encrypt|GenerateDataKey|ReEncrypt|Sign|Verify)/);
  });

  it('is granted to no role through IAM, and only the three functions are told its id', () => {
    const kmsStatements = Object.values(dev.resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((r) => r.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>)
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:')));
    expect(kmsStatements).toEqual([]);
    const arn = { 'Fn::GetAtt': [signingKeyId(dev), 'Arn'] };
    for (const name of FUNCTIONS) {
      const expected = ['auth', 'rotate-keys', 'platform'].includes(name) ? arn : undefined;
      expect(
        dev.fn(`platform-dev-${name}`).Environment.Variables.SIGNING_KEY_KMS_KEY_ID,
        name,
      ).toEqual(expected);
    }
  });

  it('outlives the stack in prod and is deleted after 7 days in dev', () => {
    expect(prod.resources[signingKeyId(prod)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { PendingWindowInDays: 30 },
    });
    expect(dev.resources[signingKeyId(dev)]).toMatchObject({
      DeletionPolicy: 'Delete',
      Properties: { PendingWindowInDays: 7 },
    });
  });
});
