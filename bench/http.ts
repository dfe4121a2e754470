/** HTTP helpers for the benchmarks that run against the local platform. */

export interface Timed<T> {
  status: number;
  ms: number;
  body: T;
}

/** A token from the platform's token endpoint (the local test client unless credentials are given). */
export async function fetchToken(
  baseUrl: string,
  clientId = 'local-dev',
  secret = 'local-dev-secret',
): Promise<string> {
  const res = await postForm(baseUrl, clientId, secret);
  if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
  return (res.body as { access_token: string }).access_token;
}

export async function postForm(
  baseUrl: string,
  clientId: string,
  secret: string,
): Promise<Timed<unknown>> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }),
  });
  const text = await res.text();
  return {
    status: res.status,
    ms: performance.now() - t0,
    body: text ? JSON.parse(text) : undefined,
  };
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** The body parser: `parseJson` from lib/json/bigint-json.ts where amounts must stay exact. */
  parse?: (text: string) => unknown;
}

/** A JSON request with a bearer token, timed from send to the end of the body. */
export async function callJson<T = { data?: Record<string, unknown> }>(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<Timed<T>> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? (options.parse ?? JSON.parse)(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, ms: performance.now() - t0, body: parsed as T };
}

/** Throws unless the answer is a 2xx. */
export function expectOk<T>(res: Timed<T>, what: string): Timed<T> {
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

/** A single-posting transaction from world, amount in cents of USD/2. */
export function fundingTransaction(destination: string, amount = 1): unknown {
  return { postings: [{ source: 'world', destination, amount, asset: 'USD/2' }] };
}
