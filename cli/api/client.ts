import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { ApiError, CliError } from '../errors.js';
import type { Credentials } from '../profile.js';
import { unreachable } from './unreachable.js';

/** A JSON request gets this long for its whole answer; streams (export, import) are not bounded. */
const REQUEST_TIMEOUT_MS = 60_000;
/** The largest page the API serves (lib/pagination/cursor.ts). */
const MAX_PAGE_SIZE = 1000;

export type Query = Record<string, string | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as exact JSON (big integers as bare numbers). */
  body?: unknown;
  headers?: Record<string, string>;
}

interface CursorPage<T> {
  cursor: { hasMore: boolean; next?: string; data: T[] };
}

/**
 * The platform's HTTP API as the CLI uses it. JSON both ways with exact integers (`lib/json`: amounts beyond 2^53
 * parse to bigint and are written back as bare numbers). A token is fetched once per run, on first use, and
 * never shown. Every failure is a one-line `CliError`: unreachable platform, refused credentials, or the API's
 * `{errorCode, errorMessage}`.
 */
export class PlatformClient {
  private token: Promise<string> | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly credentials: Credentials,
  ) {}

  /** A JSON call; the parsed answer, undefined for an empty one (204). */
  async json<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, {
      ...(options.body !== undefined
        ? { body: stringifyJson(options.body), contentType: 'application/json' }
        : {}),
      ...(options.query ? { query: options.query } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    const text = await this.read(res, method, path);
    if (text === '') return undefined as T;
    try {
      return parseJson(text) as T;
    } catch {
      throw new CliError(`${method} ${path} answered ${res.status} with a body that is not JSON`);
    }
  }

  /** A call whose answer (or request body) is a stream: the response, once its status says success. */
  async stream(
    method: string,
    path: string,
    body?: { stream: ReadableStream<Uint8Array>; contentType: string },
  ): Promise<Response> {
    const res = await this.send(method, path, body ? { body: body.stream, ...body } : {});
    if (!res.ok) await this.read(res, method, path);
    return res;
  }

  /** A request whose body is text of another type than JSON (a part of an import): the answer's text. */
  async text(
    method: string,
    path: string,
    body: { text: string; contentType: string },
    query: Query = {},
  ): Promise<string> {
    // Not time-bounded: the platform replays the part's logs one by one before it answers.
    const res = await this.send(method, path, {
      body: body.text,
      contentType: body.contentType,
      query,
    });
    return this.read(res, method, path);
  }

  /**
   * The items of a cursor-paged list, following `next` until `limit` items (all with `limit` Infinity). Holds
   * one page at a time.
   */
  async *list<T>(path: string, query: Query = {}, limit = Number.POSITIVE_INFINITY) {
    let remaining = limit;
    let pageQuery: Query = { ...query, pageSize: String(Math.min(remaining, MAX_PAGE_SIZE)) };
    while (remaining > 0) {
      const { cursor } = await this.json<CursorPage<T>>('GET', path, { query: pageQuery });
      for (const item of cursor.data.slice(0, remaining)) yield item;
      remaining -= cursor.data.length;
      if (!cursor.hasMore || !cursor.next) return;
      // A cursor carries the listing's filters: only pageSize may go with it.
      pageQuery = { cursor: cursor.next, pageSize: String(Math.min(remaining, MAX_PAGE_SIZE)) };
    }
  }

  private async send(
    method: string,
    path: string,
    request: {
      query?: Query;
      body?: string | ReadableStream<Uint8Array>;
      contentType?: string;
      headers?: Record<string, string>;
      timeoutMs?: number;
    },
  ): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, value);
    const authorization = `Bearer ${await this.bearer()}`;
    try {
      return await fetch(url, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(request.contentType ? { 'content-type': request.contentType } : {}),
          ...request.headers,
        },
        ...(request.body !== undefined ? { body: request.body } : {}),
        // A streamed request body must say so (fetch sends it as it is read).
        ...(request.body instanceof ReadableStream ? { duplex: 'half' } : {}),
        ...(request.timeoutMs ? { signal: AbortSignal.timeout(request.timeoutMs) } : {}),
      } as RequestInit);
    } catch (e) {
      throw unreachable(this.baseUrl, e, request.timeoutMs ?? 0);
    }
  }

  /** The answer's text, or the API's error as a one-line ApiError. */
  private async read(res: Response, method: string, path: string): Promise<string> {
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw unreachable(this.baseUrl, e, REQUEST_TIMEOUT_MS);
    }
    if (res.ok) return text;
    let body: { errorCode?: unknown; errorMessage?: unknown } | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body?.errorCode === 'string')
      throw new ApiError(res.status, body.errorCode, String(body.errorMessage ?? ''));
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    throw new CliError(
      `${method} ${path} failed with HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`,
    );
  }

  /** The bearer token of this run: the stored one, or one fetched with the client's credentials. */
  private bearer(): Promise<string> {
    this.token ??=
      this.credentials.type === 'token'
        ? Promise.resolve(this.credentials.token)
        : fetchToken(this.baseUrl, this.credentials.clientId, this.credentials.clientSecret);
    return this.token;
  }
}

/**
 * A token from the platform's OAuth 2.0 token endpoint (client_credentials; no `scope`: the client's own scopes).
 * Login uses it to check credentials before storing them.
 */
export async function fetchToken(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
): Promise<string> {
  const url = `${baseUrl}/api/auth/oauth/token`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    throw unreachable(baseUrl, e, REQUEST_TIMEOUT_MS);
  }
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: unknown;
    error?: string;
    error_description?: string;
  };
  if (res.status === 200 && typeof body.access_token === 'string') return body.access_token;
  const reason = body.error
    ? `${body.error}${body.error_description ? ` (${body.error_description})` : ''}`
    : 'no access token';
  throw new CliError(`authentication failed at ${url} (HTTP ${res.status}): ${reason}`);
}
