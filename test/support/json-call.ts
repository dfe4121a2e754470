import { parseJson } from '../../lib/json/bigint-json.js';

/** What a JSON call answers: the status, the headers, the body as text and as parsed JSON (undefined when empty). */
export interface JsonReply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** One request to a service app: a body that is not a string is sent as JSON (bigints as bare numbers). */
export type JsonCall = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<JsonReply>;

/** Anything with Hono's `app.request`. */
interface Requestable {
  request(input: string, init: RequestInit): Response | Promise<Response>;
}

/** A running platform reached over HTTP (`base` is then its URL and the path): `fetch` as a Requestable. */
export const overHttp: Requestable = { request: (url, init) => fetch(url, init) };

/**
 * Calls `app` under `base` (`/api/<service>`) with `token` as the bearer. Answers parse with exact big integers, as
 * the services write them, unless the test reads plain numbers (`parse: JSON.parse`).
 */
export function jsonCaller(
  app: Requestable,
  base: string,
  token: string,
  parse: (text: string) => unknown = parseJson,
): JsonCall {
  return async (method, path, body, headers = {}) => {
    const res = await app.request(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? parse(text) : undefined };
  };
}

/** JSON.stringify with bigints written as bare numbers. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `__big__${v}` : v)).replace(
    /"__big__(-?\d+)"/g,
    '$1',
  );
}
