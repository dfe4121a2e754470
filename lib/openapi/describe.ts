import type { MiddlewareHandler } from 'hono';
import type { GenericSchema } from 'valibot';

/** A JSON Schema literal, for the few places (query and header parameters) that have no valibot schema. */
export type JsonSchema = Record<string, unknown>;

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  schema?: JsonSchema;
  required?: boolean;
}

export interface ResponseSpec {
  description: string;
  /** The body's valibot schema (JSON); absent: no body. */
  schema?: GenericSchema;
  /** Another media type than `application/json` (streams). */
  mediaType?: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** By status; `default` is every other status (the contract's error body, unless a route says otherwise). */
export type Responses = { [status: number]: ResponseSpec; default?: ResponseSpec };

/** The HEAD twin of a GET route (Hono answers HEAD with the GET route: counts, existence checks). */
export interface HeadSpec {
  operationId: string;
  summary: string;
  description?: string;
  responses: Responses;
}

/** What a route documents about itself; everything else (path parameters, security) follows from the route. */
export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  /** Defaults to the service's name. */
  tags?: string[];
  parameters?: ParameterSpec[];
  /** The request body's schema: the one the handler validates with. */
  body?: GenericSchema;
  /** The body may be omitted (an empty body is accepted). */
  bodyOptional?: boolean;
  bodyMediaType?: string;
  responses: Responses;
  /** Answers without a token (discovery, keys, token endpoint, the documents themselves). */
  public?: boolean;
  head?: HeadSpec;
  /** Kept for existing callers; new ones use the v2 equivalent. */
  deprecated?: boolean;
}

/** Where `describe` leaves the spec on its middleware, for the document generator (`document.ts`). */
export const OPERATION = Symbol('openapi.operation');

export type DescribedHandler = MiddlewareHandler & { [OPERATION]: OperationSpec };

/**
 * A pass-through middleware carrying the route's OpenAPI operation (`openapi()` below registers it with the route's
 * handler). The document is generated from the app's own route table, so a route without one is caught by the
 * completeness test; the Lambda bundles drop the specs (test/infra/bundle-contents.test.ts).
 */
export function describe(spec: OperationSpec): DescribedHandler {
  const middleware: MiddlewareHandler = (_c, next) => next();
  return Object.assign(middleware, { [OPERATION]: spec });
}

/**
 * Whether route specs are kept: true wherever the code runs as written (tests, `npm start`, the document
 * generator); the Lambda bundles define it `false` (infra/bundling.ts), and the minifier then drops every
 * `OPENAPI_SPECS && {...}` spec at its route as dead code.
 */
declare global {
  var OPENAPI_SPECS: boolean;
}
globalThis.OPENAPI_SPECS ??= true;

const PASS_THROUGH: MiddlewareHandler = (_c, next) => next();

/**
 * A route's OpenAPI operation, registered with its handler in one call, its path written once:
 *
 *     app.get(path, openapi(OPENAPI_SPECS && {...}), handler);
 *
 * In a bundle the spec is `false` (dropped before it is ever parsed) and this is a pass-through middleware.
 */
export function openapi(spec: OperationSpec | false): MiddlewareHandler {
  return spec ? describe(spec) : PASS_THROUGH;
}

export function operationOf(handler: unknown): OperationSpec | undefined {
  return (handler as Partial<DescribedHandler> | undefined)?.[OPERATION];
}

/** A query parameter; `schema` defaults to a string. */
export function query(
  name: string,
  description: string,
  schema: JsonSchema = STRING,
): ParameterSpec {
  return { name, in: 'query', description, schema };
}

/** A header parameter. */
export function header(
  name: string,
  description: string,
  schema: JsonSchema = STRING,
): ParameterSpec {
  return { name, in: 'header', description, schema };
}

/** A path parameter's description (its presence follows from the route's path). */
export function path(
  name: string,
  description: string,
  schema: JsonSchema = STRING,
): ParameterSpec {
  return { name, in: 'path', description, schema, required: true };
}

export const STRING: JsonSchema = { type: 'string' };
export const BOOLEAN: JsonSchema = { type: 'boolean' };
export const DATE_TIME: JsonSchema = { type: 'string', format: 'date-time' };

/** `pageSize` and `cursor` (docs/api.md §1, "Pagination"). */
export const PAGE_PARAMETERS: ParameterSpec[] = [
  query('pageSize', 'Items per page: default 15, values above 1000 are read as 1000.', {
    type: 'integer',
    minimum: 1,
  }),
  query(
    'cursor',
    'Opaque cursor of a previous page (`next` or `previous`); when given, only `pageSize` may accompany it.',
  ),
];
