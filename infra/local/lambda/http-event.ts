import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface EventFacts {
  /** The service's prefix, `/api/ledger`: the stack routes `ANY <prefix>` and `ANY <prefix>/{proxy+}`. */
  prefix: string;
  sourceIp: string;
  requestId: string;
  now: Date;
}

/** Bodies of these media types reach the function as text; API Gateway base64-encodes every other body. */
const TEXT_MEDIA_TYPE =
  /^\s*(text\/[^;]+|application\/(json|xml|javascript|x-www-form-urlencoded|[\w.-]+\+(json|xml)))\s*(;|$)/i;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An HTTP request as API Gateway's HTTP API hands it to a Lambda (payload format 2.0): header names
 * lower-cased, repeated headers joined by commas, cookies moved out of `cookie` into `cookies`, the query
 * string raw in `rawQueryString` (and decoded, repeated keys comma-joined, in `queryStringParameters`), a
 * non-text body base64-encoded.
 */
export async function httpApiEvent(
  request: Request,
  facts: EventFacts,
): Promise<APIGatewayProxyEventV2> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const proxy = url.pathname.startsWith(`${facts.prefix}/`)
    ? url.pathname.slice(facts.prefix.length + 1)
    : undefined;
  const routeKey = proxy === undefined ? `ANY ${facts.prefix}` : `ANY ${facts.prefix}/{proxy+}`;

  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers.host ??= url.host; // HTTP/1.1 always has one; a Request made in code may not
  const cookies = headers.cookie
    ?.split(';')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  delete headers.cookie;
  headers['x-forwarded-for'] = headers['x-forwarded-for']
    ? `${headers['x-forwarded-for']}, ${facts.sourceIp}`
    : facts.sourceIp;
  headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
  headers['x-forwarded-port'] = url.port || (url.protocol === 'https:' ? '443' : '80');

  const rawQueryString = url.search.slice(1);
  const query = queryStringParameters(rawQueryString);
  const body = method === 'GET' || method === 'HEAD' ? undefined : await bodyOf(request);

  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString,
    ...(cookies?.length ? { cookies } : {}),
    headers,
    ...(query ? { queryStringParameters: query } : {}),
    ...(proxy !== undefined ? { pathParameters: { proxy: safeDecode(proxy) } } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: url.hostname.split('.')[0]!,
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: facts.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: facts.requestId,
      routeKey,
      stage: '$default',
      time: clfTime(facts.now),
      timeEpoch: facts.now.getTime(),
    },
    isBase64Encoded: body?.isBase64Encoded ?? false,
    ...(body ? { body: body.text } : {}),
  };
}

async function bodyOf(
  request: Request,
): Promise<{ text: string; isBase64Encoded: boolean } | undefined> {
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.length === 0) return undefined;
  // A text body that is not valid UTF-8 has no faithful string form: it goes base64-encoded, as a binary body
  // does, so the function sees the bytes as sent and refuses them, instead of U+FFFD where they were.
  const textual = TEXT_MEDIA_TYPE.test(request.headers.get('content-type') ?? '') && isUtf8(bytes);
  return textual
    ? { text: bytes.toString('utf8'), isBase64Encoded: false }
    : { text: bytes.toString('base64'), isBase64Encoded: true };
}

function queryStringParameters(raw: string): Record<string, string> | undefined {
  if (raw === '') return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(raw))
    params[name] = name in params ? `${params[name]},${value}` : value;
  return params;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `24/Nov/2026:20:15:53 +0000`, the format of API Gateway's `requestContext.time`. */
function clfTime(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(at.getUTCDate())}/${MONTHS[at.getUTCMonth()]}/${at.getUTCFullYear()}:${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`;
}
