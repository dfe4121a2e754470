import { InvalidResultError } from './errors.js';

/** The Lambda proxy result fields API Gateway reads (payload format 2.0, and 1.0's `multiValueHeaders`). */
interface ProxyResult {
  statusCode: number;
  headers?: Record<string, string | number | boolean | undefined>;
  multiValueHeaders?: Record<string, Array<string | number | boolean>>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** Statuses whose responses never carry a body (the Fetch API refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A function's result as API Gateway turns it into an HTTP response. A result without a `statusCode` is,
 * as payload format 2.0 infers, a 200 JSON body. A HEAD response keeps its headers and loses its body.
 */
export function httpResponse(result: unknown, method: string): Response {
  const proxy: ProxyResult = isProxyResult(result)
    ? result
    : {
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: typeof result === 'string' ? result : JSON.stringify(result),
      };
  const { statusCode } = proxy;
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599)
    throw new InvalidResultError(`statusCode ${JSON.stringify(statusCode)}`);

  const headers = new Headers();
  for (const [name, value] of Object.entries(proxy.headers ?? {}))
    if (value !== undefined && value !== null) headers.set(name, String(value));
  for (const [name, values] of Object.entries(proxy.multiValueHeaders ?? {}))
    for (const value of values ?? []) headers.append(name, String(value));
  for (const cookie of proxy.cookies ?? []) headers.append('set-cookie', cookie);

  const bodyless = method.toUpperCase() === 'HEAD' || NULL_BODY_STATUSES.has(statusCode);
  const body =
    bodyless || proxy.body === undefined
      ? null
      : proxy.isBase64Encoded
        ? new Uint8Array(Buffer.from(proxy.body, 'base64'))
        : proxy.body;
  return new Response(body, { status: statusCode, headers });
}

function isProxyResult(result: unknown): result is ProxyResult {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}
