import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';

/**
 * Methods the Fetch standard forbids in a `Request` (`new Request(url, { method: 'TRACE' })` throws), so no app
 * can be asked about them: Hono's adapter would answer its own text/plain 400 "Invalid request".
 */
const FORBIDDEN_METHODS = new Set(['TRACE', 'TRACK', 'CONNECT']);

type LambdaHandler = ReturnType<typeof handle>;

/**
 * `hono/aws-lambda`'s `handle` for an HTTP API function, answering a forbidden method as every app answers a
 * method it has no route for: 404 in the contract's error shape.
 */
export function handleHttpApi(
  // biome-ignore lint/suspicious/noExplicitAny: each app declares its own bindings type
  app: Hono<any>,
): LambdaHandler {
  const handler = handle(app);
  return (async (event, context) => {
    const method = methodOf(event);
    if (!FORBIDDEN_METHODS.has(method)) return handler(event, context);
    const path = (event as { rawPath?: string }).rawPath ?? '';
    return {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        errorCode: 'NOT_FOUND',
        errorMessage: `no route for ${method} ${path}`,
      }),
      isBase64Encoded: false,
    };
  }) as LambdaHandler;
}

const methodOf = (event: unknown): string =>
  String(
    (event as { requestContext?: { http?: { method?: string } } }).requestContext?.http?.method ??
      '',
  ).toUpperCase();
