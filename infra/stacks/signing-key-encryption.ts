import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccountRootPrincipal,
  type IRole,
  PolicyDocument,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { SIGNING_KEY_PURPOSE } from '../../lib/auth/keys/private-key-vault.js';
import type { StageConfig } from './config.js';

/**
 * What the account's administrators may do with the key: manage it (policy, rotation, tags, deletion), never
 * use it. Only the roles named below may encrypt or decrypt with it (the key policy names them: IAM policies
 * alone grant nothing on this key, since the account root is not trusted for its cryptographic operations).
 */
export const KEY_ADMIN_ACTIONS = [
  'kms:CancelKeyDeletion',
  'kms:Create*',
  'kms:Delete*',
  'kms:Describe*',
  'kms:Disable*',
  'kms:Enable*',
  'kms:Get*',
  'kms:List*',
  'kms:Put*',
  'kms:Revoke*',
  'kms:RotateKeyOnDemand',
  'kms:ScheduleKeyDeletion',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:Update*',
];

/**
 * The symmetric KMS key sealing the auth service's private signing keys (envelope encryption,
 * lib/auth/keys/kms-envelope-vault.ts), with yearly automatic rotation of its key material. Prod keeps the key
 * when the stack goes (the table's sealed keys would otherwise be unreadable); dev deletes it after 7 days.
 */
export class SigningKeyEncryption extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, config: StageConfig, physicalPrefix: string) {
    super(scope, id);
    this.key = new Key(this, 'key', {
      description: `${physicalPrefix}auth: seals the private JWT signing keys in the auth table`,
      enableKeyRotation: true,
      removalPolicy: config.stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(config.stage === 'prod' ? 30 : 7),
      policy: new PolicyDocument({
        statements: [
          new PolicyStatement({
            sid: 'KeyAdministration',
            principals: [new AccountRootPrincipal()],
            actions: KEY_ADMIN_ACTIONS,
            resources: ['*'],
          }),
        ],
      }),
    });
  }

  /** Lets `role` use the key for signing keys only (the encryption context's purpose), with these actions only. */
  allow(sid: string, role: IRole, actions: Array<'kms:GenerateDataKey' | 'kms:Decrypt'>): void {
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid,
        principals: [role],
        actions,
        resources: ['*'],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SIGNING_KEY_PURPOSE } },
      }),
    );
  }
}
