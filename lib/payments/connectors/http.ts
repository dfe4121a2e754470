import { ProviderError } from './provider.js';

export interface HttpDeps {
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/** 429s are waited out this many times per request, each wait at most MAX_RETRY_WAIT_MS. */
const MAX_RATE_LIMIT_RETRIES = 3;
const MAX_RETRY_WAIT_MS = 60_000;
const DEFAULT_RETRY_WAIT_MS = 1000;
/** A provider that does not answer within this is an error (the run retries later). */
const REQUEST_TIMEOUT_MS = 30_000;

/** The wait a `Retry-After` asks for (seconds or an HTTP date), bounded; a default when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number {
  if (header === null) return DEFAULT_RETRY_WAIT_MS;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - nowMs;
  if (!Number.isFinite(ms)) return DEFAULT_RETRY_WAIT_MS;
  return Math.min(Math.max(ms, 0), MAX_RETRY_WAIT_MS);
}

/**
 * GETs a provider's JSON with its bearer key. A 429 is retried after its `Retry-After`, a few times; any other
 * error status is a `ProviderError` carrying the provider's own explanation (`Detail`, `Title`) when it gave one.
 */
export function getJson(deps: HttpDeps, url: URL, apiKey: string): Promise<unknown> {
  return requestJson(deps, url, apiKey);
}

/**
 * POSTs JSON to a provider, as `getJson` reads (429s waited out, errors explained). The body carries the
 * provider's idempotency key, so a request repeated after a 429 or a crash creates nothing twice.
 */
export function postJson(deps: HttpDeps, url: URL, apiKey: string, body: string): Promise<unknown> {
  return requestJson(deps, url, apiKey, body);
}

async function requestJson(
  deps: HttpDeps,
  url: URL,
  apiKey: string,
  body?: string,
): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await deps.fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new ProviderError(`provider unreachable: ${(err as Error).message}`);
    }
    if (res.status === 429 && attempt < MAX_RATE_LIMIT_RETRIES) {
      await res.body?.cancel();
      await deps.sleep(retryAfterMs(res.headers.get('retry-after'), deps.now()));
      continue;
    }
    const text = await res.text();
    if (!res.ok)
      throw new ProviderError(`provider answered ${res.status}: ${explain(text)}`, res.status);
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderError(`provider answered ${res.status} with a body that is not JSON`);
    }
  }
}

function explain(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const parts = [body.Title ?? body.title, body.Detail ?? body.detail].filter(
      (p) => typeof p === 'string',
    );
    if (parts.length > 0) return parts.join(': ').slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || '(empty body)';
}
