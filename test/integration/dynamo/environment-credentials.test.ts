import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { createDocumentClients } from '../../../lib/dynamo/client.js';
import { EnvironmentKeyError } from '../../../lib/dynamo/prefix-guard.js';
import {
  EnvironmentCredentials,
  parseCredentials,
  REFRESH_MARGIN_MS,
  SESSION_SECONDS,
  sharedEnvironmentCredentials,
} from '../../../lib/dynamo/sts-credentials.js';
import { testTables } from '../../support/tables.js';

const ROLE = 'arn:aws:iam::123456789012:role/platform-prod-ledger-guard';
const BASE = {
  accessKeyId: 'AKIDFUNCTIONROLE',
  secretAccessKey: 'base-secret',
  sessionToken: 'base-token',
};
const T0 = Date.parse('2026-11-26T12:00:00Z');

const answer = (
  id: string,
  expiresAt: number,
) => `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/x/environment-${id}</Arn><AssumedRoleId>AROA:x</AssumedRoleId></AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIA${id.toUpperCase().replace(/[^A-Z0-9]/g, '')}</AccessKeyId>
      <SecretAccessKey>secret-${id}</SecretAccessKey>
      <SessionToken>token-${id}+/=</SessionToken>
      <Expiration>${new Date(expiresAt).toISOString()}</Expiration>
    </Credentials>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>
</AssumeRoleResponse>`;

/** STS as a fake transport: records each request, answers what `respond` says (by default, fresh credentials). */
function fakeSts(
  respond?: (call: number, body: URLSearchParams) => { status: number; text: string },
) {
  const calls: Array<{ url: string; headers: Record<string, string>; body: URLSearchParams }> = [];
  let clock = T0;
  const post = async (url: string, headers: Record<string, string>, text: string) => {
    const body = new URLSearchParams(text);
    calls.push({ url, headers, body });
    await new Promise((resolve) => setTimeout(resolve, 5)); // concurrent callers overlap with the call
    const environment = body.get('Tags.member.1.Value')!;
    return (
      respond?.(calls.length, body) ?? {
        status: 200,
        text: answer(`${environment}-${calls.length}`, clock + SESSION_SECONDS * 1000),
      }
    );
  };
  const credentials = new EnvironmentCredentials({
    roleArn: ROLE,
    region: 'eu-west-1',
    baseCredentials: async () => BASE,
    post,
    now: () => clock,
  });
  return { calls, credentials, advance: (ms: number) => (clock += ms) };
}

describe('EnvironmentCredentials: STS AssumeRole per environment', () => {
  it('assumes the role with the environment as session tag, signed with the function role credentials', async () => {
    const { calls, credentials } = fakeSts();
    const got = await credentials.forEnvironment('sandbox-k3j9x2q1');
    expect(got).toEqual({
      accessKeyId: 'ASIASANDBOXK3J9X2Q11', // DynamoDB Local, below, accepts only letters and digits
      secretAccessKey: 'secret-sandbox-k3j9x2q1-1',
      sessionToken: 'token-sandbox-k3j9x2q1-1+/=',
      expiration: new Date(T0 + SESSION_SECONDS * 1000),
    });
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.url).toBe('https://sts.eu-west-1.amazonaws.com/');
    expect(Object.fromEntries(call!.body)).toEqual({
      Action: 'AssumeRole',
      Version: '2011-06-15',
      RoleArn: ROLE,
      RoleSessionName: 'environment-sandbox-k3j9x2q1',
      DurationSeconds: '3600',
      'Tags.member.1.Key': 'environment',
      'Tags.member.1.Value': 'sandbox-k3j9x2q1',
    });
    expect(call!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFUNCTIONROLE\/\d{8}\/eu-west-1\/sts\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    expect(call!.headers['x-amz-security-token']).toBe('base-token');
    // The body signed is the body sent.
    expect(call!.headers['x-amz-content-sha256']).toBe(
      createHash('sha256').update(call!.body.toString()).digest('hex'),
    );
    expect(call!.headers.host).toBe('sts.eu-west-1.amazonaws.com');
  });

  it('keeps them for the container until five minutes before they expire, then assumes again', async () => {
    const { calls, credentials, advance } = fakeSts();
    const first = await credentials.forEnvironment('default');
    advance(SESSION_SECONDS * 1000 - REFRESH_MARGIN_MS - 1);
    expect(await credentials.forEnvironment('default')).toBe(first);
    expect(calls).toHaveLength(1);
    advance(1);
    const second = await credentials.forEnvironment('default');
    expect(second.accessKeyId).toBe('ASIADEFAULT2');
    expect(calls).toHaveLength(2);
  });

  it('concurrent requests of one environment share one call; each environment has its own', async () => {
    const { calls, credentials } = fakeSts();
    const got = await Promise.all([
      ...Array.from({ length: 5 }, () => credentials.forEnvironment('prod-a1')),
      credentials.forEnvironment('sandbox-b2'),
    ]);
    expect(calls.map((c) => c.body.get('Tags.member.1.Value')).sort()).toEqual([
      'prod-a1',
      'sandbox-b2',
    ]);
    expect(new Set(got.slice(0, 5).map((c) => c.accessKeyId)).size).toBe(1);
    expect(got[5]!.accessKeyId).not.toBe(got[0]!.accessKeyId);
  });

  it('a refusal fails the request, is not cached, and names STS code (never a secret)', async () => {
    const refusal = `<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: x is not authorized to perform: sts:TagSession &amp; more</Message></Error></ErrorResponse>`;
    const { calls, credentials } = fakeSts((call) =>
      call === 1
        ? { status: 403, text: refusal }
        : { status: 200, text: answer('ok', T0 + 3_600_000) },
    );
    await expect(credentials.forEnvironment('default')).rejects.toThrow(
      'environment credentials: AssumeRole refused: AccessDenied: User: x is not authorized to perform: sts:TagSession & more',
    );
    expect((await credentials.forEnvironment('default')).accessKeyId).toBe('ASIAOK');
    expect(calls).toHaveLength(2);
  });

  it('retries throttling and server errors, up to three attempts', async () => {
    const throttled = {
      status: 400,
      text: '<ErrorResponse><Error><Code>Throttling</Code></Error></ErrorResponse>',
    };
    const flaky = fakeSts((call) =>
      call < 3
        ? call === 1
          ? throttled
          : { status: 503, text: '' }
        : { status: 200, text: answer('x', T0 + 3_600_000) },
    );
    expect((await flaky.credentials.forEnvironment('default')).accessKeyId).toBe('ASIAX');
    expect(flaky.calls).toHaveLength(3);
    const down = fakeSts(() => ({ status: 500, text: '' }));
    await expect(down.credentials.forEnvironment('default')).rejects.toThrow(
      'environment credentials: AssumeRole refused: HTTP 500',
    );
    expect(down.calls).toHaveLength(3);
  });

  it('refuses what is not an environment id before calling STS (it becomes a tag and a key pattern)', async () => {
    const { calls, credentials } = fakeSts();
    for (const bad of ['*', 'a*', 'E#x', '', 'UPPER', 'x'.repeat(41)])
      await expect(credentials.forEnvironment(bad)).rejects.toThrow('not an environment id');
    expect(calls).toEqual([]);
  });

  it('an answer without credentials is an error', () => {
    expect(() => parseCredentials('<AssumeRoleResponse/>')).toThrow(
      'AssumeRole answered without credentials',
    );
  });
});

describe('createDocumentClient with ENVIRONMENT_ACCESS_ROLE_ARN (against DynamoDB Local)', () => {
  it('each environment’s client assumes the role once per environment; the function’s own client never does', async () => {
    const { variables: env } = await testTables();
    const table = env.PAYMENTS_TABLE!;
    const assumed: string[] = [];
    // A role of its own: the container-wide credentials (one per role and region), given a fake STS first.
    const roleArn = `${ROLE}-${randomUUID()}`;
    sharedEnvironmentCredentials({
      roleArn,
      region: 'us-east-1',
      baseCredentials: async () => BASE,
      post: async (url, _headers, text) => {
        expect(url).toBe('https://sts.us-east-1.amazonaws.com/');
        const environment = new URLSearchParams(text).get('Tags.member.1.Value')!;
        assumed.push(environment);
        return { status: 200, text: answer(environment, Date.now() + 3_600_000) };
      },
    });
    const { doc, clients } = createDocumentClients({
      endpoint: inject('dynamoEndpoint'),
      region: 'us-east-1',
      environmentAccessRoleArn: roleArn,
    });
    const put = (client: typeof doc, pk: string) =>
      client.send(new PutCommand({ TableName: table, Item: { pk, sk: 'x' } }));
    await put(clients.forEnvironment('env-a'), 'E#env-a#1');
    await put(clients.forEnvironment('env-a'), 'E#env-a#2');
    await put(clients.forEnvironment('env-b'), 'E#env-b#1');
    await put(doc, 'SHARED');
    expect(assumed).toEqual(['env-a', 'env-b']);
    const { Item } = await doc.send(
      new GetCommand({ TableName: table, Key: { pk: 'E#env-a#2', sk: 'x' } }),
    );
    expect(Item).toEqual({ pk: 'E#env-a#2', sk: 'x' });
  });
});

describe('createDocumentClients: each environment’s client, its keys checked (against DynamoDB Local)', () => {
  it('with the guard role: its environment’s credentials; a key of another environment fails before it is sent', async () => {
    const { variables: env } = await testTables();
    const table = env.PAYMENTS_TABLE!;
    const assumed: string[] = [];
    const roleArn = `${ROLE}-${randomUUID()}`;
    sharedEnvironmentCredentials({
      roleArn,
      region: 'us-east-1',
      baseCredentials: async () => BASE,
      post: async (_url, _headers, text) => {
        const environment = new URLSearchParams(text).get('Tags.member.1.Value')!;
        assumed.push(environment);
        return { status: 200, text: answer(environment, Date.now() + 3_600_000) };
      },
    });
    const { doc, clients } = createDocumentClients({
      endpoint: inject('dynamoEndpoint'),
      region: 'us-east-1',
      environmentAccessRoleArn: roleArn,
    });
    const a = clients.forEnvironment('env-a');
    expect(clients.forEnvironment('env-a')).toBe(a);
    await a.send(new PutCommand({ TableName: table, Item: { pk: 'E#env-a#1', sk: 'x' } }));
    await expect(
      a.send(new PutCommand({ TableName: table, Item: { pk: 'E#env-b#1', sk: 'x' } })),
    ).rejects.toThrow(
      new EnvironmentKeyError('a call in environment env-a names E#env-b#1, outside E#env-a#*'),
    );
    expect(assumed).toEqual(['env-a']);
    const read = (pk: string) =>
      doc.send(new GetCommand({ TableName: table, Key: { pk, sk: 'x' } })).then((r) => r.Item);
    expect(await read('E#env-a#1')).toEqual({ pk: 'E#env-a#1', sk: 'x' });
    expect(await read('E#env-b#1')).toBeUndefined();
  });

  it('without IAM (npm start, the tests): the same key rule, on the one base client', async () => {
    const { variables: env } = await testTables();
    const table = env.WEBHOOKS_TABLE!;
    const { doc, clients } = createDocumentClients({ endpoint: inject('dynamoEndpoint') });
    const sandbox = clients.forEnvironment('sandbox-1');
    await sandbox.send(
      new PutCommand({ TableName: table, Item: { pk: 'E#sandbox-1#c', sk: 'x' } }),
    );
    await expect(
      sandbox.send(new PutCommand({ TableName: table, Item: { pk: 'E#sandbox-2#c', sk: 'x' } })),
    ).rejects.toThrow(EnvironmentKeyError);
    await expect(
      sandbox.send(new GetCommand({ TableName: table, Key: { pk: 'SHARED', sk: 'x' } })),
    ).rejects.toThrow('names SHARED, outside E#sandbox-1#*');
    expect(
      (await doc.send(new GetCommand({ TableName: table, Key: { pk: 'E#sandbox-2#c', sk: 'x' } })))
        .Item,
    ).toBeUndefined();
  });
});
