/**
 * Calls to the platform's API, same origin, with the session's bearer token. Bodies are parsed losslessly
 * (the platform's own exact parser): integers arrive as `bigint`, so an amount beyond 2^53 keeps every digit.
 * The log's hash covers amounts as bare numbers, which is why the console parses instead of asking for
 * `Formance-Bigint-As-String`: one reading serves both display and verification.
 */
import { parseJson } from '../lib/json/bigint-json.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A page of a list, as every list of the API returns it. */
export interface Page<T> {
  pageSize: number;
  hasMore: boolean;
  previous?: string;
  next?: string;
  data: T[];
}

type Query = Record<string, string | undefined>;

let currentToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

/** The token every call carries, and what to do when the platform refuses it (401). */
export function setApiToken(token: string | undefined, unauthorized?: () => void): void {
  currentToken = token;
  onUnauthorized = unauthorized;
}

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export async function apiGet<T>(path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
  return call<T>('GET', apiUrl(path, query), signal);
}

/** A POST; `body` is sent as JSON (plain values: nothing here sends a big integer). */
export async function apiPost<T>(path: string, signal?: AbortSignal, body?: unknown): Promise<T> {
  return call<T>('POST', path, signal, body);
}

/**
 * A list page: with a cursor, only the cursor (and the page size) may be sent — it carries the list's filters.
 */
export async function apiList<T>(
  path: string,
  query: Query,
  cursor: string | undefined,
  signal?: AbortSignal,
): Promise<Page<T>> {
  const sent = cursor ? { pageSize: query.pageSize, cursor } : query;
  return (await apiGet<{ cursor: Page<T> }>(path, sent, signal)).cursor;
}

async function call<T>(
  method: string,
  url: string,
  signal?: AbortSignal,
  body?: unknown,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(currentToken ? { authorization: `Bearer ${currentToken}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'the platform cannot be reached');
  }
  const text = await res.text();
  let answer: unknown;
  try {
    answer = text ? parseJson(text) : undefined;
  } catch {
    throw new ApiError(
      res.status,
      `${method} ${url} answered ${res.status} with a body that is not JSON`,
    );
  }
  if (res.status === 401) onUnauthorized?.();
  if (res.status >= 400) {
    const error = answer as { errorCode?: string; errorMessage?: string } | undefined;
    throw new ApiError(
      res.status,
      `${res.status} ${error?.errorCode ?? 'ERROR'}: ${error?.errorMessage ?? res.statusText}`,
    );
  }
  return answer as T;
}
