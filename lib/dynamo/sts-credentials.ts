import { request as httpsRequest } from 'node:https';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { isEnvironmentId } from '../environments/environment-id.js';

/**
 * The per-environment credentials of the isolation guard (docs/operations.md, "Isolation guard"). A function given
 * ENVIRONMENT_ACCESS_ROLE_ARN by the stack reaches its tables only through that role, assumed per environment
 * with the session tag `environment=<id>`; the role's policy allows partition keys `E#<id>#*` only, so a request
 * cannot touch another environment's items whatever the code asks, and a call made outside any environment
 * (with the function's own role) is refused by IAM. The clients built over them: environment-clients.ts.
 *
 * STS is called with a signed Query request (the SDK's own SigV4 signer, already in every bundle) rather than
 * @aws-sdk/client-sts, which would add ~38 KB to bundles that are near their 600 KB budget.
 */

/** Temporary credentials of one environment (the shape the SDK's credential providers return). */
export interface SessionCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
export type CredentialsProvider = () => Promise<Credentials>;
/** One HTTPS POST: its answer's status and text. */
export type Post = (
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<{ status: number; text: string }>;

export interface EnvironmentCredentialsOptions {
  roleArn: string;
  region: string;
  /** The function's own credentials, which sign the AssumeRole request. */
  baseCredentials: CredentialsProvider;
  /** How the request is sent: node:https by default. */
  post?: Post;
  now?: () => number;
}

/** The session tag the guard role's policy reads (infra/stacks/environment-access.ts). */
export const ENVIRONMENT_TAG = 'environment';
/** Sessions last an hour (the role's default maximum)... */
export const SESSION_SECONDS = 3600;
/** ...and are replaced five minutes before they end, so no request starts with credentials about to expire. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** Environments a container keeps credentials (and clients) for; the oldest is dropped beyond. */
export const MAX_ENVIRONMENTS = 200;
const ATTEMPTS = 3;

/** Credentials per environment, assumed once and shared by every request of the container until near expiry. */
export class EnvironmentCredentials {
  private readonly cache = new Map<string, SessionCredentials>();
  private readonly pending = new Map<string, Promise<SessionCredentials>>();
  private readonly now: () => number;

  constructor(private readonly options: EnvironmentCredentialsOptions) {
    this.now = options.now ?? Date.now;
  }

  forEnvironment(environment: string): Promise<SessionCredentials> {
    // The id becomes a session tag and, through the policy variable, a key pattern: only a valid one gets there.
    if (!isEnvironmentId(environment))
      return Promise.reject(new Error('environment credentials: not an environment id'));
    const cached = this.cache.get(environment);
    if (cached && cached.expiration.getTime() - REFRESH_MARGIN_MS > this.now())
      return Promise.resolve(cached);
    // Concurrent requests of one environment share one AssumeRole call.
    let pending = this.pending.get(environment);
    if (!pending) {
      pending = this.assume(environment).finally(() => this.pending.delete(environment));
      this.pending.set(environment, pending);
    }
    return pending;
  }

  private async assume(environment: string): Promise<SessionCredentials> {
    const credentials = await assumeRole(this.options, environment);
    this.cache.delete(environment); // re-inserted last: the map's order is the order of use
    this.cache.set(environment, credentials);
    if (this.cache.size > MAX_ENVIRONMENTS) this.cache.delete(this.cache.keys().next().value!);
    return credentials;
  }
}

const stsHost = (region: string) =>
  `sts.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;

/** STS AssumeRole (Query API), signed with the base credentials; retried on throttling, 5xx and network errors. */
async function assumeRole(
  options: EnvironmentCredentialsOptions,
  environment: string,
): Promise<SessionCredentials> {
  const hostname = stsHost(options.region);
  const body = new URLSearchParams({
    Action: 'AssumeRole',
    Version: '2011-06-15',
    RoleArn: options.roleArn,
    RoleSessionName: `environment-${environment}`, // CloudTrail names the environment of every call
    DurationSeconds: String(SESSION_SECONDS),
    'Tags.member.1.Key': ENVIRONMENT_TAG,
    'Tags.member.1.Value': environment,
  }).toString();
  const signer = new SignatureV4({
    service: 'sts',
    region: options.region,
    credentials: options.baseCredentials,
    sha256: Sha256,
  });
  const post = options.post ?? httpsPost;
  for (let attempt = 1; ; attempt++) {
    const signed = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: 'https:',
        hostname,
        path: '/',
        headers: { host: hostname, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }),
    );
    let status: number;
    let text: string;
    try {
      ({ status, text } = await post(`https://${hostname}/`, signed.headers, body));
    } catch (err) {
      if (attempt < ATTEMPTS) {
        await pause(attempt);
        continue;
      }
      throw new Error(`environment credentials: STS unreachable (${(err as Error).message})`);
    }
    if (status === 200) return parseCredentials(text);
    const code = xmlText(text, 'Code') ?? `HTTP ${status}`;
    if (attempt < ATTEMPTS && (status >= 500 || code === 'Throttling')) {
      await pause(attempt);
      continue;
    }
    throw new Error(
      `environment credentials: AssumeRole refused: ${code}: ${xmlText(text, 'Message') ?? ''}`,
    );
  }
}

/**
 * node:https, which the SDK's HTTP handler has loaded already: `fetch` would load undici on the first request of
 * a container (about 50 ms).
 */
const httpsPost: Post = (url, headers, body) =>
  new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: 3000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt * (0.5 + Math.random())));

/** The answer's four fields: STS's XML is flat and fixed, its values free of markup. */
export function parseCredentials(xml: string): SessionCredentials {
  const accessKeyId = xmlText(xml, 'AccessKeyId');
  const secretAccessKey = xmlText(xml, 'SecretAccessKey');
  const sessionToken = xmlText(xml, 'SessionToken');
  const expiration = new Date(xmlText(xml, 'Expiration') ?? '');
  if (!accessKeyId || !secretAccessKey || !sessionToken || Number.isNaN(expiration.getTime()))
    throw new Error('environment credentials: AssumeRole answered without credentials');
  return { accessKeyId, secretAccessKey, sessionToken, expiration };
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match?.[1]?.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!);
}

/** One EnvironmentCredentials per role and region in a container, whichever client asks. */
const shared = new Map<string, EnvironmentCredentials>();

export function sharedEnvironmentCredentials(
  options: EnvironmentCredentialsOptions,
): EnvironmentCredentials {
  const key = `${options.roleArn} ${options.region}`;
  let credentials = shared.get(key);
  if (!credentials) {
    credentials = new EnvironmentCredentials(options);
    shared.set(key, credentials);
  }
  return credentials;
}
