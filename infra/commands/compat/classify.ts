import {
  ResponseValidationError,
  SDKValidationError,
} from '@formance/formance-sdk/sdk/models/errors/index.js';
import type { Exchange } from './exchanges.js';
import { splitExtensions } from './extensions.js';
import { sdkBodySchema, unknownFields } from './shape.js';

/**
 * OK: 2xx and the body is the SDK's response schema. NOT-IMPLEMENTED: the platform has no route for it. SHAPE: 2xx,
 * but the SDK rejected the body (its schema wants other types) or the body carries fields the schema does not
 * declare (the SDK drops them: a caller would read `undefined`). ERROR: anything else (an error status on a route that
 * exists, input the SDK refused to send, a network failure).
 */
export type Outcome = 'OK' | 'NOT-IMPLEMENTED' | 'SHAPE' | 'ERROR';
export const OUTCOMES: readonly Outcome[] = ['OK', 'NOT-IMPLEMENTED', 'SHAPE', 'ERROR'];

export interface Verdict {
  outcome: Outcome;
  /** The HTTP status of the operation's last exchange, or undefined when nothing was sent. */
  status: number | undefined;
  detail: string;
}

/** Does the platform route `method url`? (Asked again when the answer alone cannot tell.) */
export type RouteCheck = (method: string, url: string) => Promise<boolean>;

const NO_ROUTE = /no route for/i;
const DETAIL_LENGTH = 200;

/**
 * The verdict on an operation the SDK completed. Some operations declare no error responses, so the SDK resolves
 * with whatever status came: those are judged like a failure.
 */
export async function judgeSuccess(
  service: string,
  op: string,
  x: Exchange | undefined,
  routeExists: RouteCheck,
): Promise<Verdict> {
  if (!x)
    return {
      outcome: 'ERROR',
      status: undefined,
      detail: 'the SDK resolved without an HTTP exchange',
    };
  if (x.status < 200 || x.status >= 300)
    return judgeFailure(new Error(`the SDK resolved with HTTP ${x.status}`), x, routeExists);
  const { extensions, unknown } = splitExtensions(service, undeclaredFields(service, op, x));
  if (unknown.length)
    return {
      outcome: 'SHAPE',
      status: x.status,
      detail: oneLine(`field(s) the SDK's schema does not declare: ${unknown.join(', ')}`),
    };
  // Count operations exist for their Count header, which the SDK does not check.
  const detail = [
    /^count/.test(op) && x.count === null ? `${x.status} without a Count header` : '',
    extensions.length ? `adds ${extensions.join(', ')} (extensions.ts)` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return { outcome: 'OK', status: x.status, detail: oneLine(detail) };
}

/** The fields of a JSON answer that the SDK's schema for that operation and status does not declare. */
function undeclaredFields(service: string, op: string, x: Exchange): string[] {
  const schema = sdkBodySchema(service, op, x.status);
  if (!schema || !x.body.trim()) return [];
  let body: unknown;
  try {
    body = JSON.parse(x.body);
  } catch {
    return [];
  }
  return unknownFields(schema, body);
}

/** The verdict on an operation the SDK threw on: what the platform answered, and what the SDK made of it. */
export async function judgeFailure(
  err: unknown,
  x: Exchange | undefined,
  routeExists: RouteCheck,
): Promise<Verdict> {
  if (!x) {
    const why =
      err instanceof SDKValidationError
        ? 'input rejected by the SDK before sending'
        : errorName(err);
    return {
      outcome: 'ERROR',
      status: undefined,
      detail: `${why}: ${oneLine(err instanceof Error ? err.message : String(err))}`,
    };
  }
  const status = x.status;
  if (status === 405 || status === 501) return { outcome: 'NOT-IMPLEMENTED', status, detail: '' };
  if (status === 404 && NO_ROUTE.test(x.body))
    return { outcome: 'NOT-IMPLEMENTED', status, detail: 'no route' };
  // A HEAD answer has no body, and an operation the SDK sends without a token (or with the wrong scope) is refused
  // before routing: ask the route again to tell "no route" from a real answer.
  if ((status === 404 && x.method === 'HEAD') || status === 401 || status === 403) {
    if (!(await routeExists(x.method, x.url)))
      return { outcome: 'NOT-IMPLEMENTED', status, detail: 'no route' };
  }
  if (status >= 200 && status < 300 && err instanceof ResponseValidationError) {
    return { outcome: 'SHAPE', status, detail: shapeDetail(err) };
  }
  if (err instanceof ResponseValidationError) {
    return {
      outcome: 'ERROR',
      status,
      detail: `error body not in the SDK's error shape: ${errorText(x.body)}`,
    };
  }
  return { outcome: 'ERROR', status, detail: errorText(x.body) || errorName(err) };
}

/** The fields the SDK's schema complained about, without array indexes and the response wrapper's name. */
function shapeDetail(err: ResponseValidationError): string {
  const issues = (
    err.cause as { issues?: Array<{ path: Array<string | number>; message: string }> } | undefined
  )?.issues;
  if (!issues?.length) return oneLine(err.message);
  const fields = [
    ...new Set(
      issues.map(
        (i) =>
          `${
            i.path
              .map((p) => (typeof p === 'number' ? '[]' : p))
              .join('.')
              .replace(/\.\[\]/g, '[]') || '<root>'
          }: ${i.message}`,
      ),
    ),
  ];
  return `${fields.length} field(s): ${fields.join('; ')}`;
}

/** An error body as one short line: the contract's {errorCode, errorMessage} when it is that, else the text. */
function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as {
      errorCode?: unknown;
      errorMessage?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    const code = parsed.errorCode ?? parsed.error;
    const message = parsed.errorMessage ?? parsed.error_description;
    if (code !== undefined || message !== undefined)
      return oneLine([code, message].filter((v) => v !== undefined).join(': '));
  } catch {
    // not JSON: the text itself
  }
  return oneLine(body);
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.constructor.name : 'Error';
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > DETAIL_LENGTH ? `${line.slice(0, DETAIL_LENGTH)}…` : line;
}
