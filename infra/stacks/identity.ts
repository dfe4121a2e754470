import { Aws, CfnOutput, Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  OAuthScope,
  StandardThreatProtectionMode,
  UserPool,
  UserPoolClientIdentityProvider,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { IdentityProviderSetting } from './config.js';

/** IDENTITY_PROVIDER_ISSUER and IDENTITY_PROVIDER_CLIENT_ID of the functions (lib/config/env.ts), or nothing. */
export type IdentityVariables = Record<string, string>;

/**
 * The OpenID Connect provider persons log in with (docs/decisions/tenancy.md, "Persons and the identity provider"):
 * none, an external one named in context, or an Amazon Cognito user pool made here. Returns the functions'
 * environment for it.
 */
export function identityVariables(
  scope: Construct,
  setting: IdentityProviderSetting,
  physicalPrefix: string,
): IdentityVariables {
  if (setting.kind === 'none') return {};
  if (setting.kind === 'external')
    return {
      IDENTITY_PROVIDER_ISSUER: setting.issuer,
      IDENTITY_PROVIDER_CLIENT_ID: setting.clientId,
    };
  const cognito = new CognitoIdentity(scope, 'identity', physicalPrefix, setting.callbackUrls);
  return {
    IDENTITY_PROVIDER_ISSUER: cognito.issuer,
    IDENTITY_PROVIDER_CLIENT_ID: cognito.clientId,
  };
}

/**
 * A Cognito user pool for the platform's persons: sign-in by verified email, no self sign-up (an admin creates
 * each person, docs/operations.md), a strong password and a one-time-password app as second factor, the Plus
 * plan's threat protection (compromised credentials, risky sign-ins blocked). Retained with deletion protection,
 * as the tables are: persons' accounts outlive a stack. One public app client (the CLI and console: authorization
 * code with PKCE, no secret) and the hosted sign-in pages.
 */
export class CognitoIdentity extends Construct {
  readonly pool: UserPool;
  readonly issuer: string;
  readonly clientId: string;

  constructor(scope: Construct, id: string, physicalPrefix: string, callbackUrls: string[]) {
    super(scope, id);
    const name = physicalPrefix.replace(/-$/, '');
    this.pool = new UserPool(this, 'user-pool', {
      userPoolName: `${name}-persons`,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      selfSignUpEnabled: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      keepOriginal: { email: true }, // a changed email counts only once verified
      passwordPolicy: {
        minLength: 14,
        passwordHistorySize: 5,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      // Persons act on financial data: a second factor always, from an authenticator app (SMS is phishable).
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const client = this.pool.addClient('app-client', {
      userPoolClientName: `${name}-cli`,
      // A public client (CLI, browser): no secret; Cognito checks the PKCE verifier of a code sent with a challenge.
      generateSecret: false,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls,
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      // The ID token is exchanged once for a platform token (900 s): nothing needs it, or a refresh, for long.
      idTokenValidity: Duration.minutes(15),
      accessTokenValidity: Duration.minutes(15),
      refreshTokenValidity: Duration.hours(1),
      enableTokenRevocation: true,
    });
    // Domain prefixes are global to a region: the account id keeps two accounts' stacks of one name apart.
    const domain = this.pool.addDomain('hosted-ui', {
      cognitoDomain: { domainPrefix: `${name}-${Aws.ACCOUNT_ID}` },
    });
    this.issuer = `https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}/${this.pool.userPoolId}`;
    this.clientId = client.userPoolClientId;

    new CfnOutput(scope, 'IdentityIssuer', {
      value: this.issuer,
      description: 'IDENTITY_PROVIDER_ISSUER: the user pool persons log in with',
    });
    new CfnOutput(scope, 'IdentityClientId', {
      value: this.clientId,
      description: 'IDENTITY_PROVIDER_CLIENT_ID: the public app client (authorization code + PKCE)',
    });
    new CfnOutput(scope, 'IdentityLoginBaseUrl', {
      value: domain.baseUrl(),
      description: 'Hosted sign-in pages (/oauth2/authorize, /oauth2/token)',
    });
    new CfnOutput(scope, 'IdentityUserPoolId', {
      value: this.pool.userPoolId,
      description: 'Persons are added here (aws cognito-idp admin-create-user)',
    });
  }
}
