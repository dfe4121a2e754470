import { describe, expect, it } from 'vitest';
import { platformConfigFromVariables } from '../../lib/config/env.js';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

/** The functions that read the identity provider's settings (every service function reads the configuration). */
const SERVICES = [
  'auth',
  'ledger',
  'ledger-writer',
  'payments',
  'platform',
  'webhooks',
  'rotate-keys',
];

const ofType = (reader: ReturnType<typeof templateReader>, type: string) =>
  Object.entries(reader.resources).filter(([, r]) => r.Type === type);
const variables = (reader: ReturnType<typeof templateReader>, stage: string, name: string) =>
  reader.fn(`platform-${stage}-${name}`).Environment.Variables as Record<string, unknown>;

describe('identity provider: a Cognito user pool (prod by default)', () => {
  const prod = templateReader(
    synthPlatform({
      stage: 'prod',
      identityCallbackUrls: 'https://console.example.com/callback',
      platformAdmins: 'Ops@Example.com,cto@example.com',
    }).template,
  );
  const [[poolId, pool]] = ofType(prod, 'AWS::Cognito::UserPool') as [[string, any]];
  const [[clientId, client]] = ofType(prod, 'AWS::Cognito::UserPoolClient') as [[string, any]];

  it('a pool of persons signing in by verified email, created by an admin only, kept with the data', () => {
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.Properties).toMatchObject({
      UserPoolName: 'platform-prod-persons',
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      UsernameConfiguration: { CaseSensitive: false },
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      DeletionProtection: 'ACTIVE',
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      UserPoolTier: 'PLUS',
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
    });
    expect(pool.Properties.Policies.PasswordPolicy).toEqual({
      MinimumLength: 14,
      PasswordHistorySize: 5,
      RequireLowercase: true,
      RequireUppercase: true,
      RequireNumbers: true,
      RequireSymbols: true,
      TemporaryPasswordValidityDays: 3,
    });
  });

  it('one public client: authorization code (with PKCE), openid email profile, the configured callbacks', () => {
    expect(client.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      CallbackURLs: ['https://console.example.com/callback'],
      SupportedIdentityProviders: ['COGNITO'],
      PreventUserExistenceErrors: 'ENABLED',
      UserPoolId: { Ref: poolId },
    });
    expect(client.Properties.AllowedOAuthFlows).not.toContain('implicit');
  });

  it('a hosted sign-in domain named after the stack (and the account, for uniqueness)', () => {
    const [[, domain]] = ofType(prod, 'AWS::Cognito::UserPoolDomain') as [[string, any]];
    expect(domain.Properties).toEqual({
      Domain: { 'Fn::Join': ['', ['platform-prod-', { Ref: 'AWS::AccountId' }]] },
      UserPoolId: { Ref: poolId },
    });
  });

  it('every service function gets the issuer, the client id and the admins', () => {
    const issuer = {
      'Fn::Join': [
        '',
        [
          'https://cognito-idp.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          '/',
          { Ref: poolId },
        ],
      ],
    };
    for (const name of SERVICES) {
      const env = variables(prod, 'prod', name);
      expect([name, env.IDENTITY_PROVIDER_ISSUER]).toEqual([name, issuer]);
      expect(env.IDENTITY_PROVIDER_CLIENT_ID).toEqual({ Ref: clientId });
      expect(env.PLATFORM_ADMINS).toBe('ops@example.com,cto@example.com');
    }
    // The workers and the console need none of it.
    for (const name of ['dispatch', 'deliver', 'console'])
      expect(variables(prod, 'prod', name).IDENTITY_PROVIDER_ISSUER).toBeUndefined();
  });

  it('what the functions read of it passes their start-up checks', () => {
    const env = {
      ...(variables(prod, 'prod', 'platform') as Record<string, string>),
      PUBLIC_BASE_URL: 'https://abc.execute-api.eu-west-1.amazonaws.com',
      IDENTITY_PROVIDER_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf',
      IDENTITY_PROVIDER_CLIENT_ID: '1example23456789',
      SIGNING_KEY_KMS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/x',
    };
    expect(platformConfigFromVariables(env).platform).toMatchObject({
      identityProvider: {
        issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf',
        clientId: '1example23456789',
      },
      admins: ['ops@example.com', 'cto@example.com'],
    });
  });
});

describe('identity provider: none, or an external one', () => {
  it('dev by default: no user pool, no identity variables (no person logs in; clients work as before)', () => {
    const dev = templateReader(synthPlatform({ stage: 'dev' }).template);
    expect(ofType(dev, 'AWS::Cognito::UserPool')).toEqual([]);
    for (const name of SERVICES) {
      const env = variables(dev, 'dev', name);
      expect([
        env.IDENTITY_PROVIDER_ISSUER,
        env.IDENTITY_PROVIDER_CLIENT_ID,
        env.PLATFORM_ADMINS,
      ]).toEqual([undefined, undefined, undefined]);
    }
  });

  it('prod with -c identityProvider=none: no user pool either', () => {
    const prod = templateReader(
      synthPlatform({ stage: 'prod', identityProvider: 'none' }).template,
    );
    expect(ofType(prod, 'AWS::Cognito::UserPool')).toEqual([]);
    expect(variables(prod, 'prod', 'auth').IDENTITY_PROVIDER_ISSUER).toBeUndefined();
  });

  it('an external provider: its issuer and client id, no user pool', () => {
    const external = templateReader(
      synthPlatform({
        stage: 'prod',
        identityProvider: 'https://login.example.com|platform-cli',
      }).template,
    );
    expect(ofType(external, 'AWS::Cognito::UserPool')).toEqual([]);
    for (const name of SERVICES) {
      const env = variables(external, 'prod', name);
      expect([env.IDENTITY_PROVIDER_ISSUER, env.IDENTITY_PROVIDER_CLIENT_ID]).toEqual([
        'https://login.example.com',
        'platform-cli',
      ]);
    }
  });
});
