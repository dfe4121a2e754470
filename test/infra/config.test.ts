import { describe, expect, it } from 'vitest';
import { parse as parseInLambda } from '../../infra/lambda-yaml.js';
import { authConfigForFunction, checkAuthConfig } from '../../infra/stacks/auth-config-check.js';
import { stageConfigFromContext } from '../../infra/stacks/config.js';
import { parseAuthConfig } from '../../lib/auth/domain/static-clients.js';
import { synthPlatform } from './synth.js';

const read = (context: Record<string, unknown>) =>
  stageConfigFromContext({ tryGetContext: (key) => context[key] });

describe('stage configuration from context', () => {
  it('defaults to dev with the API endpoint, no bucket tables, no source maps', () => {
    expect(read({})).toEqual({
      stage: 'dev',
      ledgerBuckets: [],
      sourcemap: false,
      staticClientSecrets: {},
      logRetentionDays: 30,
      throttle: { rateLimit: 50, burstLimit: 100 },
      tracing: false,
      identityProvider: { kind: 'none' },
      platformAdmins: [],
      exportTargets: { buckets: [], streams: [] },
    });
  });

  it('reads prod, JSON or comma-separated lists, JSON maps and a custom domain', () => {
    expect(
      read({
        stage: 'prod',
        publicBaseUrl: 'https://api.example.com',
        ledgerBuckets: 'heavy, reports',
        staticClientSecrets: '{"A_SECRET":"name#field"}',
        sourcemap: 'true',
        alarmEmail: 'ops@example.com',
        tracing: 'true',
        exportBuckets: 'acme-lake/ledger/,acme-archive',
        exportStreams: 'ledger-logs,arn:aws:kinesis:eu-west-3:123456789012:stream/audit',
      }),
    ).toEqual({
      stage: 'prod',
      publicBaseUrl: 'https://api.example.com',
      ledgerBuckets: ['heavy', 'reports'],
      sourcemap: true,
      staticClientSecrets: { A_SECRET: 'name#field' },
      alarmEmail: 'ops@example.com',
      logRetentionDays: 365,
      throttle: { rateLimit: 500, burstLimit: 1000 },
      tracing: true,
      // A hosted stage: persons log in through a Cognito user pool, the CLI's loopback redirect by default.
      identityProvider: { kind: 'cognito', callbackUrls: ['http://localhost:8765/callback'] },
      platformAdmins: [],
      exportTargets: {
        buckets: [
          { bucket: 'acme-lake', prefix: 'ledger/' },
          { bucket: 'acme-archive', prefix: '' },
        ],
        streams: ['ledger-logs', 'arn:aws:kinesis:eu-west-3:123456789012:stream/audit'],
      },
    });
    expect(read({ ledgerBuckets: ['a'] }).ledgerBuckets).toEqual(['a']);
    expect(
      read({ corsOrigins: 'https://console.example.com, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://console.example.com', 'http://localhost:5173']);
  });

  it.each([
    [
      { exportBuckets: 'Bad_Bucket' },
      'context "exportBuckets": "Bad_Bucket" is not a bucket or bucket/prefix',
    ],
    [
      { exportBuckets: 'b-1/*' },
      'context "exportBuckets": "b-1/*" is not a bucket or bucket/prefix',
    ],
    [
      { exportStreams: 'has space' },
      'context "exportStreams": "has space" is not a stream name or ARN',
    ],
    [{ stage: 'staging' }, 'context "stage" must be dev or prod (got "staging")'],
    [
      { publicBaseUrl: 'http://api.example.com' },
      'context "publicBaseUrl" must be an https URL without query, fragment or trailing slash (got "http://api.example.com")',
    ],
    [
      { publicBaseUrl: 'https://api.example.com/' },
      'context "publicBaseUrl" must be an https URL without query, fragment or trailing slash (got "https://api.example.com/")',
    ],
    [
      { publicBaseUrl: 'api.example.com' },
      'context "publicBaseUrl" is not an absolute URL: "api.example.com"',
    ],
    [{ ledgerBuckets: 'a b' }, 'context "ledgerBuckets": "a b" is not a valid bucket name'],
    [{ ledgerBuckets: 'a,a' }, 'context "ledgerBuckets" lists a bucket twice'],
    [
      { staticClientSecrets: '{"lower":"x"}' },
      'context "staticClientSecrets": "lower" is not an environment variable name',
    ],
    [
      { staticClientSecrets: '["x"]' },
      'context "staticClientSecrets" must be a JSON object of strings',
    ],
    [{ tracing: 'on' }, 'context "tracing" must be true or false (got "on")'],
    [{ logRetentionDays: '45' }, /log retention of 45 days is not one CloudWatch Logs accepts/],
    [
      { corsOrigins: 'https://console.example.com/app' },
      'context "corsOrigins": "https://console.example.com/app" is not an origin such as https://console.example.com',
    ],
    [
      { identityProvider: 'okta' },
      'context "identityProvider" must be cognito, none or <https issuer>|<client id> (got "okta")',
    ],
    [
      { identityProvider: 'http://idp.example.com|abc' },
      'context "identityProvider" must be cognito, none or <https issuer>|<client id> (got "http://idp.example.com|abc")',
    ],
    [
      { identityProvider: 'https://idp.example.com|' },
      'context "identityProvider" must be cognito, none or <https issuer>|<client id> (got "https://idp.example.com|")',
    ],
    [
      { identityProvider: 'https://idp.example.com|a|b' },
      'context "identityProvider" must be cognito, none or <https issuer>|<client id> (got "https://idp.example.com|a|b")',
    ],
    [
      { identityProvider: 'cognito', identityCallbackUrls: 'http://app.example.com/cb' },
      'context "identityCallbackUrls": "http://app.example.com/cb" must be an https URL, or http on localhost',
    ],
    [
      { identityCallbackUrls: 'https://app.example.com/cb' },
      'context "identityCallbackUrls" is for identityProvider=cognito only',
    ],
    [
      { platformAdmins: 'ops@example.com, nobody' },
      'context "platformAdmins": "nobody" is not an email',
    ],
  ])('refuses %j', (context: Record<string, unknown>, message) => {
    // Retention is checked where log groups are made, so that case needs a synth.
    expect(() => ('logRetentionDays' in context ? synthPlatform(context) : read(context))).toThrow(
      message,
    );
  });
});

describe('identity provider and platform admins from context', () => {
  it('cognito by default for prod, none for dev; either stage may say otherwise', () => {
    expect(read({ stage: 'prod' }).identityProvider.kind).toBe('cognito');
    expect(read({ stage: 'dev' }).identityProvider).toEqual({ kind: 'none' });
    expect(read({ stage: 'prod', identityProvider: 'none' }).identityProvider).toEqual({
      kind: 'none',
    });
    expect(
      read({
        identityProvider: 'cognito',
        identityCallbackUrls:
          'https://console.example.com/callback, http://127.0.0.1:8765/callback',
      }).identityProvider,
    ).toEqual({
      kind: 'cognito',
      callbackUrls: ['https://console.example.com/callback', 'http://127.0.0.1:8765/callback'],
    });
  });

  it('an external provider as <issuer>|<client id> (a trailing slash of the issuer dropped)', () => {
    expect(
      read({ stage: 'prod', identityProvider: 'https://login.example.com/tenant/|platform-cli' })
        .identityProvider,
    ).toEqual({
      kind: 'external',
      issuer: 'https://login.example.com/tenant',
      clientId: 'platform-cli',
    });
  });

  it('admins as the functions read them: trimmed, lower-cased', () => {
    expect(read({ platformAdmins: ' Ops@Example.com,b@example.org ' }).platformAdmins).toEqual([
      'ops@example.com',
      'b@example.org',
    ]);
  });
});

describe('auth configuration checked at synth', () => {
  it('refuses the test-only client and its secret in prod, before anything is deployed', () => {
    expect(() =>
      checkAuthConfig('clients:\n  - id: local-dev\n    secrets: [$S]\n', 'prod', ['S']),
    ).toThrow('auth config: clients[0].id: the test-only client "local-dev" is refused in prod');
    expect(() =>
      synthPlatform({
        stage: 'prod',
        authConfig: 'clients:\n  - id: local-dev\n    secrets: [$S]\n',
        staticClientSecrets: '{"S":"s"}',
      }),
    ).toThrow('the test-only client "local-dev" is refused in prod');
    expect(() =>
      checkAuthConfig('clients:\n  - id: x\n    secrets: [local-dev-secret]\n', 'prod', []),
    ).toThrow('auth config: clients[0].secrets[0]: the test-only secret is refused in prod');
  });

  it('refuses clear secrets (they would be in the template) and $NAME references without a source', () => {
    expect(() =>
      checkAuthConfig('clients:\n  - id: x\n    secrets: [a-long-clear-secret-value]\n', 'dev', []),
    ).toThrow(
      'auth config: clients[0].secrets[0]: deployed secrets must be $NAME references to Secrets Manager',
    );
    expect(() =>
      checkAuthConfig('clients:\n  - id: x\n    secrets: [$MISSING]\n', 'dev', ['OTHER']),
    ).toThrow(
      'auth config: clients[0].secrets[0]: $MISSING has no entry in context "staticClientSecrets"',
    );
    expect(() => checkAuthConfig('clients: [', 'dev', [])).toThrow(
      /^auth config: not valid YAML or JSON/,
    );
  });

  it('hands the function the YAML as JSON, which the bundles read without a YAML parser, to the same clients', () => {
    const text =
      '# billing\nclients:\n  - id: billing\n    scopes: [ledger:read]\n    secrets: [$BILLING_SECRET]\nresources:\n  - https://api.example.com/reports\n';
    const json = authConfigForFunction(text);
    expect(json).toBe(
      '{"clients":[{"id":"billing","scopes":["ledger:read"],"secrets":["$BILLING_SECRET"]}],"resources":["https://api.example.com/reports"]}',
    );
    expect(parseInLambda(json)).toEqual(JSON.parse(json));
    const env = { BILLING_SECRET: 'a-long-enough-billing-secret' };
    expect(parseAuthConfig(json, 'AUTH_CONFIG_INLINE', env, 'prod')).toEqual(
      parseAuthConfig(text, 'AUTH_CONFIG_INLINE', env, 'prod'),
    );
    expect(authConfigForFunction('')).toBe('{}');
  });

  it('accepts the test client in dev when its secret comes from Secrets Manager, and a config without clients', () => {
    expect(() =>
      checkAuthConfig('clients:\n  - id: local-dev\n    secrets: [$S]\n', 'dev', ['S']),
    ).not.toThrow();
    expect(() =>
      checkAuthConfig('resources: [https://api.example.com/reports]\n', 'prod', []),
    ).not.toThrow();
  });
});
