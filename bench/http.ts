/** HTTP helpers for the benchmarks that run against the local platform. */
import { Agent, request } from 'node:http';

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

/**
 * The load's keep-alive connections (one pool per thread). Node's `fetch` costs a request about 0.2 ms and 0.25
 * CPU-ms more than `http.request` (one closed-loop client against a server that answers at once: 0.25–0.32 against
 * 0.09–0.11 ms a round trip), on a load generator that shares the platform's two cores.
 */
const agent = new Agent({ keepAlive: true });

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
  const payload = body !== undefined ? JSON.stringify(body) : undefined;
  const res = await send(
    new URL(path, baseUrl),
    method,
    {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(payload !== undefined
        ? {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
          }
        : {}),
      ...options.headers,
    },
    payload,
  );
  let parsed: unknown;
  try {
    parsed = res.text ? (options.parse ?? JSON.parse)(res.text) : undefined;
  } catch {
    parsed = res.text;
  }
  return { status: res.status, ms: performance.now() - t0, body: parsed as T };
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<{ status: number; text: string }> {
  if (url.protocol !== 'http:') throw new Error(`the bench's client speaks http only: ${url.href}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
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
