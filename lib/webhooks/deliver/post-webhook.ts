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
export const DEFAULT_TIMEOUT_MS = 15_000;

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
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (errorKind: PostWebhookErrorKind, error: string): PostWebhookFailure => ({
    error,
    errorKind,
    durationMs: elapsed(),
  });

  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return fail('invalid-url', 'webhook endpoint is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail('invalid-url', `webhook endpoint must be http(s), not ${url.protocol}`);
  }

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
      return fail('refused', (err as Error).message);
    }
  }

  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body = typeof input.body === 'string' ? Buffer.from(input.body) : input.body;

  return new Promise<PostWebhookResult>((settle) => {
    let settled = false;
    let response: { status: number; retryAfter?: string } | undefined;
    const chunks: Buffer[] = [];
    let previewBytes = 0;

    const finish = (result: PostWebhookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy(); // never keep reading: a hostile receiver could stream forever
      settle(result);
    };
    const answered = () => {
      const preview = Buffer.concat(chunks).subarray(0, BODY_PREVIEW_BYTES).toString('utf8');
      const result: PostWebhookResponse = {
        status: response!.status,
        durationMs: elapsed(),
        bodyPreview: preview,
      };
      if (response!.retryAfter !== undefined) result.retryAfter = response!.retryAfter;
      finish(result);
    };

    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...input.headers, 'content-length': String(body.byteLength) },
        agent: false, // a fresh connection per attempt: no pooled socket that skipped our checks
        lookup: guardedLookup(guard),
      },
      (res) => {
        const retryAfter = res.headers['retry-after'];
        response = {
          status: res.statusCode ?? 0,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          previewBytes += chunk.length;
          if (previewBytes >= BODY_PREVIEW_BYTES) answered();
        });
        res.on('end', answered);
        // The status line already arrived: a reset while reading the body still leaves a real answer.
        res.on('error', answered);
        res.on('close', answered);
      },
    );

    // Belt and braces: whatever path produced the socket, the address it actually connected to is checked.
    req.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        try {
          checkAddress(url.hostname, socket.remoteAddress ?? '', guard);
        } catch (err) {
          req.destroy(err as Error);
        }
      });
    });

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (response) return answered();
      if (err instanceof RefusedAddressError) return finish(fail('refused', err.message));
      finish(fail('network', err.code ? `${err.code}: ${err.message}` : err.message));
    });

    // One deadline for connect, send and the status line. Once the receiver has answered, the status is the
    // outcome and the preview is whatever arrived in time.
    const deadline = setTimeout(() => {
      if (response) answered();
      else finish(fail('timeout', `no response within ${timeoutMs} ms`));
    }, timeoutMs);

    req.end(body);
  });
}
