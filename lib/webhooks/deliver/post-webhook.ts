// One webhook POST over node:http/https, with the SSRF guard on the dialled address, no redirects and a hard
// deadline. Deliberately no HTTP client library: we need to own exactly what is dialled and followed.
import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import {
  checkAddress,
  type GuardOptions,
  guardedLookup,
  RefusedAddressError,
  resolveDeliverable,
} from '../ssrf/guarded-lookup.js';
import { parseIpAddress } from '../ssrf/ip-address.js';

/** docs/api.md §4.1: each attempt records the first 4 KiB of the response body. */
export const BODY_PREVIEW_BYTES = 4096;
/** How long one attempt waits for the receiver (connect, send, status line), deliveries and tests alike. */
export const DELIVERY_TIMEOUT_MS = 15_000;

export interface PostWebhookInput extends GuardOptions {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  timeoutMs?: number;
}

export interface PostWebhookResponse {
  /** Any status, 3xx included: redirects are reported, never followed. */
  status: number;
  durationMs: number;
  bodyPreview: string;
  /** The raw `Retry-After` header, for the retry schedule to interpret. */
  retryAfter?: string;
}

export type PostWebhookErrorKind = 'invalid-url' | 'refused' | 'timeout' | 'network';

export interface PostWebhookFailure {
  error: string;
  errorKind: PostWebhookErrorKind;
  durationMs: number;
}

export type PostWebhookResult = PostWebhookResponse | PostWebhookFailure;

export function isFailure(result: PostWebhookResult): result is PostWebhookFailure {
  return 'error' in result;
}

export async function postWebhook(input: PostWebhookInput): Promise<PostWebhookResult> {
  const clock = stopwatch();
  const url = endpointOf(input.url);
  if (typeof url === 'string') return clock.fail('invalid-url', url);

  // Node skips `lookup` when the host is already an IP literal, so literals are checked here, before dialling.
  // (WHATWG URL has already turned `2130706433`, `0x7f000001`, `127.1` … into 127.0.0.1.)
  const guard: GuardOptions = {
    allowLoopback: input.allowLoopback ?? false,
    resolve: input.resolve,
  };
  if (parseIpAddress(url.hostname)) {
    try {
      await resolveDeliverable(url.hostname, guard);
    } catch (err) {
      return clock.fail('refused', (err as Error).message);
    }
  }

  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const body = typeof input.body === 'string' ? Buffer.from(input.body) : input.body;
  return send({ url, headers: input.headers, body, guard, timeoutMs }, clock);
}

/** Time since the attempt began, and a failure stamped with it. */
interface Stopwatch {
  elapsed(): number;
  fail(errorKind: PostWebhookErrorKind, error: string): PostWebhookFailure;
}

function stopwatch(): Stopwatch {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return { elapsed, fail: (errorKind, error) => ({ error, errorKind, durationMs: elapsed() }) };
}

/** The endpoint as a URL, or why it cannot be one: only http(s). */
function endpointOf(endpoint: string): URL | string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'webhook endpoint is not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `webhook endpoint must be http(s), not ${url.protocol}`;
  }
  return url;
}

interface Post {
  url: URL;
  headers: Record<string, string>;
  body: Uint8Array;
  guard: GuardOptions;
  timeoutMs: number;
}

/** The POST itself: settles once, with the answer (status and preview) or why there was none. */
function send(post: Post, clock: Stopwatch): Promise<PostWebhookResult> {
  const { url, guard, timeoutMs } = post;
  return new Promise<PostWebhookResult>((settle) => {
    let settled = false;
    const reader = new ResponseReader();
    const finish = (result: PostWebhookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy(); // never keep reading: a hostile receiver could stream forever
      settle(result);
    };
    const answered = () => finish(reader.result(clock.elapsed()));

    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...post.headers, 'content-length': String(post.body.byteLength) },
        agent: false, // a fresh connection per attempt: no pooled socket that skipped our checks
        lookup: guardedLookup(guard),
      },
      (res) => reader.read(res, answered),
    );
    checkConnectedAddress(req, url.hostname, guard);

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (reader.answered) return answered();
      if (err instanceof RefusedAddressError) return finish(clock.fail('refused', err.message));
      finish(clock.fail('network', err.code ? `${err.code}: ${err.message}` : err.message));
    });

    // One deadline for connect, send and the status line. Once the receiver has answered, the status is the
    // outcome and the preview is whatever arrived in time.
    const deadline = setTimeout(() => {
      if (reader.answered) answered();
      else finish(clock.fail('timeout', `no response within ${timeoutMs} ms`));
    }, timeoutMs);

    req.end(post.body);
  });
}

/** Belt and braces: whatever path produced the socket, the address it actually connected to is checked. */
function checkConnectedAddress(req: http.ClientRequest, hostname: string, guard: GuardOptions) {
  req.on('socket', (socket: Socket) => {
    socket.once('connect', () => {
      try {
        checkAddress(hostname, socket.remoteAddress ?? '', guard);
      } catch (err) {
        req.destroy(err as Error);
      }
    });
  });
}

/** The receiver's answer: its status line, `Retry-After`, and the first BODY_PREVIEW_BYTES of its body. */
class ResponseReader {
  private response: { status: number; retryAfter?: string } | undefined;
  private readonly chunks: Buffer[] = [];
  private previewBytes = 0;

  /** Whether the status line has arrived. */
  get answered(): boolean {
    return this.response !== undefined;
  }

  /** Reads `res` until the preview is full or the body ends (or breaks off), then calls `done`. */
  read(res: http.IncomingMessage, done: () => void): void {
    const retryAfter = res.headers['retry-after'];
    this.response = {
      status: res.statusCode ?? 0,
      ...(retryAfter === undefined ? {} : { retryAfter }),
    };
    res.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.previewBytes += chunk.length;
      if (this.previewBytes >= BODY_PREVIEW_BYTES) done();
    });
    res.on('end', done);
    // The status line already arrived: a reset while reading the body still leaves a real answer.
    res.on('error', done);
    res.on('close', done);
  }

  result(durationMs: number): PostWebhookResponse {
    const preview = Buffer.concat(this.chunks).subarray(0, BODY_PREVIEW_BYTES).toString('utf8');
    const result: PostWebhookResponse = {
      status: this.response!.status,
      durationMs,
      bodyPreview: preview,
    };
    if (this.response!.retryAfter !== undefined) result.retryAfter = this.response!.retryAfter;
    return result;
  }
}
