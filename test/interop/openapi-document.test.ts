import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../lib/openapi/document.js';
import { platformDocument } from '../../lib/openapi/platform-document.js';
import { appsWithoutIo, openApiPathOf, TEST_BASE_URL } from '../support/openapi.js';

/**
 * The OpenAPI document against the apps it is generated from: every route of every Hono app is in it, it is a
 * valid OpenAPI 3.1 document, and its operations read like the official SDK's.
 */

const { services, versions } = appsWithoutIo();
let document: OpenApiDocument;

beforeAll(async () => {
  document = await platformDocument(services, [versions], 'http://127.0.0.1');
});

/**
 * Routes that are not operations, each for a reason: the unauthenticated health probe (docs/api.md §1, internal to
 * the gateway's and the stack's checks) and the document itself.
 */
const NOT_OPERATIONS = new Set(['GET /_health', 'GET /openapi.json']);

/**
 * `app.all(...)` handlers that are not middleware: the payments resources and the ledger's
 * metrics, answered with 501 (their not-implemented.ts).
 */
const NOT_IMPLEMENTED = /^\/api\/payments\/(v3\/)?[a-z-]+(\/\*)?$|^\/api\/ledger\/_\/metrics$/;

function routesOf(app: { routes: { method: string; path: string }[] }, base = '') {
  const seen = new Map<string, { method: string; path: string }>();
  for (const { method, path } of app.routes) seen.set(`${method} ${path}`, { method, path });
  return [...seen.values()].map((r) => ({ ...r, relative: r.path.slice(base.length) }));
}

describe('OpenAPI document: completeness', () => {
  it('holds every route of every service app and of the /versions app (method and path)', () => {
    const missing: string[] = [];
    let checked = 0;
    const apps: [string, { routes: { method: string; path: string }[] }, string][] = [
      ...Object.entries(services).map(
        ([name, app]) => [name, app, `/api/${name}`] as [string, typeof app, string],
      ),
      ['versions', versions, ''],
    ];
    for (const [name, app, base] of apps) {
      for (const { method, path, relative } of routesOf(app, base)) {
        if (method === 'ALL') {
          // Middleware (`app.use`: wildcards, or one path's guard) and the 501 resources; never an operation.
          const middleware =
            path.endsWith('*') || app.routes.some((r) => r.path === path && r.method !== 'ALL');
          if (!middleware && !NOT_IMPLEMENTED.test(path))
            missing.push(`${name}: ALL ${path} is neither middleware nor a 501 resource`);
          continue;
        }
        if (NOT_OPERATIONS.has(`${method} ${relative}`)) continue;
        checked++;
        const operation = document.paths[openApiPathOf(path)]?.[method.toLowerCase()];
        if (!operation?.operationId) missing.push(`${name}: ${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
    // Both ways: as many routes checked as the document has operations (HEAD twins aside), never none.
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.keys(item as object).filter((m) => m !== 'head'),
    );
    expect(checked).toBe(operations.length);
    expect(checked).toBeGreaterThan(50);
  });

  it('has no operation without a route (nothing documented that is not served)', () => {
    const served = new Set<string>();
    for (const [_name, app] of Object.entries(services))
      for (const r of app.routes) served.add(`${r.method} ${openApiPathOf(r.path)}`);
    for (const r of versions.routes) served.add(`${r.method} ${openApiPathOf(r.path)}`);
    const extra: string[] = [];
    for (const [path, item] of Object.entries(document.paths))
      for (const method of Object.keys(item as object)) {
        // HEAD is answered by the GET route (Hono), documented where the SDK counts with it.
        const routeMethod = method === 'head' ? 'GET' : method.toUpperCase();
        if (!served.has(`${routeMethod} ${path}`)) extra.push(`${method} ${path}`);
      }
    expect(extra).toEqual([]);
  });

  it('documents the HEAD counts the SDK calls', () => {
    expect(document.paths['/api/ledger/v2/{ledger}/transactions'].head.operationId).toBe(
      'v2CountTransactions',
    );
    expect(document.paths['/api/ledger/v2/{ledger}/accounts'].head.operationId).toBe(
      'v2CountAccounts',
    );
    expect(document.paths['/api/ledger/{ledger}/transactions'].head.operationId).toBe(
      'countTransactions',
    );
    expect(document.paths['/api/ledger/{ledger}/accounts'].head.operationId).toBe('countAccounts');
  });
});

describe('OpenAPI document: validity and content', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives every operation a unique operationId, a summary, a tag, responses and its security', () => {
    const ids = new Map<string, string>();
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, any>)) {
        const where = `${method} ${path}`;
        if (ids.has(op.operationId))
          problems.push(`${op.operationId}: ${where} and ${ids.get(op.operationId)}`);
        ids.set(op.operationId, where);
        if (!op.summary) problems.push(`${where}: no summary`);
        if (!op.tags?.length) problems.push(`${where}: no tag`);
        if (!Object.keys(op.responses ?? {}).length) problems.push(`${where}: no responses`);
        if (!Array.isArray(op.security)) problems.push(`${where}: no security`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("takes the official SDK's operation names", () => {
    const ids = (path: string) =>
      Object.fromEntries(
        Object.entries(document.paths[path] as Record<string, any>).map(([m, op]) => [
          m,
          op.operationId,
        ]),
      );
    expect(ids('/api/ledger/v2/{ledger}/transactions')).toEqual({
      post: 'v2CreateTransaction',
      get: 'v2ListTransactions',
      head: 'v2CountTransactions',
    });
    expect(ids('/api/webhooks/configs')).toEqual({ post: 'insertConfig', get: 'getManyConfigs' });
    expect(ids('/api/payments/v3/payments')).toEqual({
      post: 'v3CreatePayment',
      get: 'v3ListPayments',
    });
    expect(ids('/api/auth/clients/{id}/secrets')).toEqual({ post: 'createSecret' });
    expect(ids('/versions')).toEqual({ get: 'getVersions' });
  });

  it('asks for the scope each route requires, by bearer JWT or OAuth 2.0 client credentials', () => {
    const create = document.paths['/api/ledger/v2/{ledger}/transactions'].post;
    expect(create.security).toEqual([
      { oauth2: ['ledger:write'] },
      { bearerAuth: ['ledger:write'] },
    ]);
    const list = document.paths['/api/webhooks/deliveries'].get;
    expect(list.security).toEqual([
      { oauth2: ['webhooks:read'] },
      { bearerAuth: ['webhooks:read'] },
    ]);
    expect(document.paths['/api/auth/oauth/token'].post.security).toEqual([]);
    expect(document.paths['/api/auth/keys'].get.security).toEqual([]);
    const { oauth2, bearerAuth } = document.components.securitySchemes;
    expect(bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(oauth2.flows.clientCredentials.tokenUrl).toBe(`${TEST_BASE_URL}/api/auth/oauth/token`);
    expect(Object.keys(oauth2.flows.clientCredentials.scopes)).toEqual([
      'ledger:read',
      'ledger:write',
      'webhooks:read',
      'webhooks:write',
      'payments:read',
      'payments:write',
      'auth:read',
      'auth:write',
    ]);
    expect(document.servers).toEqual([{ url: TEST_BASE_URL, description: 'This platform' }]);
  });

  it("documents a request body with the handler's own valibot schema", () => {
    // The first of its two shapes (postings, or a script: test/interop/openapi-examples.test.ts).
    const body =
      document.paths['/api/ledger/v2/{ledger}/transactions'].post.requestBody.content[
        'application/json'
      ].schema.oneOf[0];
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.postings.maxItems).toBe(100);
    expect(body.properties.postings.items.required).toEqual([
      'source',
      'destination',
      'amount',
      'asset',
    ]);
    expect(body.properties.postings.items.properties.asset.pattern).toBe(
      '^[A-Z][A-Z0-9]{0,16}(_[A-Z]{1,16})?(\\/\\d{1,6})?$',
    );
    // keyedRecord maps (lib/validation/record.ts) keep their key and value schemas.
    expect(body.properties.metadata).toEqual({
      type: 'object',
      propertyNames: { type: 'string', minLength: 1, maxLength: 256 },
      additionalProperties: { type: 'string', maxLength: 4096 },
    });
    const token = document.paths['/api/auth/oauth/token'].post.requestBody.content;
    expect(Object.keys(token)).toEqual(['application/x-www-form-urlencoded']);
  });

  it('is served by each service at /api/<service>/openapi.json without a token, its own routes only', async () => {
    for (const [name, app] of Object.entries(services)) {
      const res = await app.request(`/api/${name}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const own = (await res.json()) as OpenApiDocument;
      expect(own.openapi).toBe('3.1.0');
      const paths = Object.keys(own.paths);
      expect(paths.length).toBeGreaterThan(2);
      expect(paths.every((p) => p.startsWith(`/api/${name}/`))).toBe(true);
      for (const path of paths) expect(document.paths[path]).toEqual(own.paths[path]);
    }
  });
});
