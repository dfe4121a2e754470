import type { RouterRoute } from 'hono/types';
import { findTargetHandler } from 'hono/utils/handler';
import type { GenericSchema } from 'valibot';
import { SERVICES, type Service } from '../tokens/scopes.js';
import { OAUTH2, TOKEN_PATH } from './base-url.js';
import { withAlternatives } from './body-alternatives.js';
import {
  type OperationSpec,
  operationOf,
  type ParameterSpec,
  type ResponseSpec,
} from './describe.js';
import type { DocumentedService } from './document-source.js';
import { exampleBody, exampleParameter } from './examples/index.js';
import { type NamedSchemas, type SchemaConverter, schemaConverter } from './json-schema.js';
import { errorSchema } from './schemas.js';

// biome-ignore lint/suspicious/noExplicitAny: a document is plain JSON, shaped by the OpenAPI 3.1 specification
export type OpenApiDocument = Record<string, any>;

export interface DocumentOptions {
  /**
   * The service whose scopes the routes require (the platform service: a platform token, no scope); absent: every
   * route is public (`/versions`).
   */
  service?: DocumentedService;
  title: string;
  description: string;
  version: string;
  /** The named response schemas (`components.schemas`). */
  schemas: NamedSchemas;
}

/** The bearer scheme's name, the same in every document (as `OAUTH2`), so documents merge. */
const BEARER = 'bearerAuth';

/** Descriptions of path parameters that many routes share. */
const PATH_PARAMETERS: Record<string, string> = {
  ledger: 'Name of the ledger.',
  id: 'Identifier of the record.',
  txid: 'Transaction id.',
  address: 'Account address (segments of `a-zA-Z0-9_-` separated by `:`).',
  key: 'Metadata key.',
  bucket: 'Name of the bucket.',
  secretId: 'Identifier of the secret.',
};

/**
 * The OpenAPI 3.1 document of a Hono app, generated from its own route table: every route registered with a
 * `describe(...)` middleware becomes an operation (its HEAD twin too when it has one). Path parameters come from
 * the route's path, security from the service's scope rule (docs/api.md §1: `<service>:read` for GET and HEAD,
 * `<service>:write` for the rest), request and response schemas from the route's valibot schemas.
 */
export async function appDocument(
  app: { routes: RouterRoute[] },
  options: DocumentOptions,
): Promise<OpenApiDocument> {
  const converter = await schemaConverter({ Error: errorSchema, ...options.schemas });
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    const spec = operationOf(findTargetHandler(route.handler));
    if (!spec) continue;
    const path = openApiPath(route.path);
    const method = route.method.toLowerCase();
    paths[path] ??= {};
    const item = paths[path];
    if (item[method]) throw new Error(`openapi: ${route.method} ${route.path} is described twice`);
    item[method] = operation(spec, method, path, options.service, converter);
    for (const tag of tagsOf(spec, options.service)) tags.add(tag);
    if (spec.head) {
      item.head = operation(
        { ...spec, ...spec.head, body: undefined, head: undefined },
        'head',
        path,
        options.service,
        converter,
      );
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: options.title, description: options.description, version: options.version },
    // Alphabetical, the v1 routes (kept for existing callers) after the rest.
    tags: [...tags]
      .sort((a, b) => Number(a.endsWith(' v1')) - Number(b.endsWith(' v1')) || a.localeCompare(b))
      .map((name) => ({ name })),
    paths,
    components: {
      schemas: converter.components(),
      securitySchemes: securitySchemes(
        options.service && options.service !== 'platform' ? [options.service] : [],
      ),
    },
  };
}

function operation(
  spec: OperationSpec,
  method: string,
  path: string,
  service: DocumentedService | undefined,
  converter: SchemaConverter,
): Record<string, unknown> {
  const secured = service !== undefined && !spec.public;
  const scope = secured && service !== 'platform' ? scopeFor(service, method) : undefined;
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses))
    responses[status] = responseObject(response, converter);
  if (scope) {
    responses['401'] ??= errorResponse('Missing, malformed or expired token (`UNAUTHORIZED`).');
    responses['403'] ??= errorResponse(`The token lacks the \`${scope}\` scope (\`FORBIDDEN\`).`);
  } else if (secured) {
    responses['401'] ??= errorResponse(
      'Missing, malformed or expired platform token (`UNAUTHORIZED`).',
    );
    responses['403'] ??= errorResponse(
      'An environment token, or a role that does not allow this (`FORBIDDEN`).',
    );
  }
  if (method !== 'head')
    responses.default ??= errorResponse('Error: `{errorCode, errorMessage}` (docs/api.md §1.1).');
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: tagsOf(spec, service),
    ...(spec.deprecated ? { deprecated: true } : {}),
    parameters: parameters(spec.parameters ?? [], path).map((p) => {
      const example = exampleParameter(service, spec.operationId, p.name, p.in === 'path');
      return example === undefined ? p : { ...p, example };
    }),
    ...(spec.body ? { requestBody: requestBody(spec, spec.body, service, converter) } : {}),
    responses,
    // Scalar and generated clients read `security`: a public route says so with an empty list.
    security: scope
      ? [{ [OAUTH2]: [scope] }, { [BEARER]: [scope] }]
      : secured
        ? [{ [BEARER]: [] }]
        : [],
  };
}

function requestBody(
  spec: OperationSpec,
  body: GenericSchema,
  service: DocumentedService | undefined,
  converter: SchemaConverter,
): Record<string, unknown> {
  const example = exampleBody(service, spec.operationId);
  return {
    required: !spec.bodyOptional,
    content: {
      [spec.bodyMediaType ?? 'application/json']: {
        schema: withAlternatives(converter.convert(body)),
        ...(example !== undefined ? { example } : {}),
      },
    },
  };
}

function tagsOf(spec: OperationSpec, service: DocumentedService | undefined): string[] {
  return spec.tags ?? [service ?? 'platform'];
}

function scopeFor(service: Service, method: string): string {
  return `${service}:${method === 'get' || method === 'head' ? 'read' : 'write'}`;
}

/** The route's path parameters (described from the spec or the shared table), then its other parameters. */
function parameters(
  declared: readonly ParameterSpec[],
  path: string,
): { name: string; in: string }[] {
  const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const own = new Map(declared.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  for (const name of own.keys())
    if (!inPath.includes(name)) throw new Error(`openapi: ${path} has no path parameter "${name}"`);
  return [
    ...inPath.map((name) => {
      const p = own.get(name);
      return {
        name,
        in: 'path',
        required: true,
        description: p?.description ?? PATH_PARAMETERS[name] ?? name,
        schema: p?.schema ?? { type: 'string' },
      };
    }),
    ...declared
      .filter((p) => p.in !== 'path')
      .map((p) => ({
        name: p.name,
        in: p.in,
        ...(p.required ? { required: true } : {}),
        description: p.description,
        schema: p.schema ?? { type: 'string' },
      })),
  ];
}

function responseObject(response: ResponseSpec, converter: SchemaConverter): unknown {
  return {
    description: response.description,
    ...(response.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([name, h]) => [
              name,
              { description: h.description, schema: h.schema },
            ]),
          ),
        }
      : {}),
    ...(response.schema
      ? {
          content: {
            [response.mediaType ?? 'application/json']: {
              schema: converter.convert(response.schema),
            },
          },
        }
      : {}),
  };
}

function errorResponse(description: string): unknown {
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

function securitySchemes(services: readonly Service[]): Record<string, unknown> {
  const scopes = Object.fromEntries(
    services.flatMap((s) => [
      [`${s}:read`, `Read the ${s} service (GET, HEAD).`],
      [`${s}:write`, `Read and write the ${s} service (write implies read).`],
    ]),
  );
  return {
    [OAUTH2]: {
      type: 'oauth2',
      description:
        'OAuth 2.0 client credentials: a client id and secret (`/api/auth/clients`) exchanged at the token endpoint for a JWT.',
      flows: { clientCredentials: { tokenUrl: TOKEN_PATH, scopes } },
    },
    [BEARER]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A JWT from the token endpoint, sent as `Authorization: Bearer <token>`.',
    },
  };
}

/** Hono's `/v2/:ledger/transactions/:id{[0-9]+}` → OpenAPI's `/v2/{ledger}/transactions/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath
    .split('/')
    .map((segment) => {
      const param = /^:([^{?]+)(\{.*\})?\??$/.exec(segment);
      return param ? `{${param[1]}}` : segment;
    })
    .join('/');
}

/**
 * One document from several (the four services and the platform's own routes): paths and schemas are
 * united, and a path or schema name two documents define differently is an error, never a silent overwrite.
 */
export function mergeDocuments(
  documents: readonly OpenApiDocument[],
  info: { title: string; description: string; version: string },
): OpenApiDocument {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const tags = new Map<string, unknown>();
  const scopes: Record<string, string> = {};
  let schemes: OpenApiDocument | undefined;
  // The services' documents name the same server (the platform's base URL): the first one's is kept.
  const servers = documents.find((doc) => doc.servers)?.servers;
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (paths[path]) throw new Error(`openapi: ${path} is in two documents`);
      paths[path] = item;
    }
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema))
        throw new Error(`openapi: schema ${name} differs between documents`);
      schemas[name] = schema;
    }
    for (const tag of doc.tags ?? []) tags.set(tag.name, tag);
    const docSchemes = doc.components?.securitySchemes;
    if (docSchemes) {
      schemes ??= structuredClone(docSchemes);
      Object.assign(scopes, docSchemes[OAUTH2]?.flows?.clientCredentials?.scopes ?? {});
    }
  }
  const ordered = Object.fromEntries(
    SERVICES.flatMap((s) => [`${s}:read`, `${s}:write`])
      .filter((s) => s in scopes)
      .map((s) => [s, scopes[s]]),
  );
  if (schemes?.[OAUTH2]) schemes[OAUTH2].flows.clientCredentials.scopes = ordered;
  return {
    openapi: '3.1.0',
    info,
    ...(servers ? { servers } : {}),
    tags: [...tags.values()],
    paths,
    components: { schemas, ...(schemes ? { securitySchemes: schemes } : {}) },
  };
}
