/**
 * The documents' examples (lib/openapi/examples/) are what "Test Request" sends unchanged: every operation with
 * a JSON or form body has one, and it is valid twice over, for the route's own validator (the valibot schema the
 * handler parses with) and for the document's schema (JSON Schema 2020-12, `oneOf` shapes included). Every path
 * parameter has an example value. The tags are grouped by service, each in one group.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { findTargetHandler } from 'hono/utils/handler';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { offlinePlatformDocument } from '../../infra/openapi-assets.js';
import { operationOf } from '../../lib/openapi/describe.js';
import type { OpenApiDocument } from '../../lib/openapi/document.js';
import type { DocumentedService } from '../../lib/openapi/document-source.js';
import { exampleBody } from '../../lib/openapi/examples/index.js';
import { appsWithoutIo } from '../support/openapi.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

/** Bodies that are not a JSON value a reader could type: the import's is an export file (NDJSON). */
const NO_EXAMPLE = new Set(['v2ImportLogs']);

let document: OpenApiDocument;
beforeAll(async () => {
  document = await offlinePlatformDocument();
});

function describedBodies() {
  const { services } = appsWithoutIo();
  return Object.entries(services).flatMap(([service, app]) =>
    app.routes.flatMap((route) => {
      const spec = operationOf(findTargetHandler(route.handler));
      return spec?.body && !NO_EXAMPLE.has(spec.operationId)
        ? [{ service: service as DocumentedService, spec, body: spec.body }]
        : [];
    }),
  );
}

function documentOperations() {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Record<string, unknown>>).map(([method, op]) => ({
      path,
      method,
      op: op as any,
    })),
  );
}

describe('request examples', () => {
  it('exist for every operation with a JSON or form body, and its route validator takes them', () => {
    const bodies = describedBodies();
    expect(bodies.length).toBeGreaterThan(35);
    const missing = bodies
      .filter(({ service, spec }) => exampleBody(service, spec.operationId) === undefined)
      .map(({ spec }) => spec.operationId);
    expect(missing).toEqual([]);
    const refused = bodies.flatMap(({ service, spec, body }) => {
      const result = v.safeParse(body, exampleBody(service, spec.operationId));
      return result.success
        ? []
        : [`${spec.operationId}: ${result.issues.map((i) => `${v.getDotPath(i)} ${i.message}`)}`];
    });
    expect(refused).toEqual([]);
  });

  it("fit the document's own schemas (every `oneOf` shape included)", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({
      $id: 'components',
      $defs: JSON.parse(
        JSON.stringify(document.components.schemas).replaceAll(
          '"#/components/schemas/',
          '"components#/$defs/',
        ),
      ),
    });
    const failures: string[] = [];
    let checked = 0;
    for (const { method, path, op } of documentOperations()) {
      for (const [mediaType, content] of Object.entries(op.requestBody?.content ?? {})) {
        const { schema, example } = content as { schema: unknown; example?: unknown };
        if (mediaType === 'application/octet-stream') continue;
        expect(example, `${method} ${path}`).toBeDefined();
        checked++;
        const validate = ajv.compile(
          JSON.parse(
            JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'),
          ),
        );
        if (!validate(example))
          failures.push(`${method} ${path}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(checked).toBeGreaterThan(35);
    expect(failures).toEqual([]);
  });

  it('give every path parameter a value', () => {
    const missing = documentOperations().flatMap(({ method, path, op }) =>
      (op.parameters ?? [])
        .filter(
          (p: { in: string; example?: unknown }) => p.in === 'path' && p.example === undefined,
        )
        .map((p: { name: string }) => `${method} ${path} {${p.name}}`),
    );
    expect(missing).toEqual([]);
    const create = document.paths['/api/ledger/v2/{ledger}/transactions'].post;
    expect(create.parameters[0]).toMatchObject({ name: 'ledger', example: 'main' });
  });
});

describe('bodies of one of several shapes', () => {
  const transactionBody = () =>
    document.paths['/api/ledger/v2/{ledger}/transactions'].post.requestBody.content[
      'application/json'
    ].schema;

  it('a transaction is postings or a script, each shape named, never both', () => {
    const schema = transactionBody();
    expect(schema.type).toBeUndefined();
    expect(
      schema.oneOf.map((s: { title: string; required: string[] }) => [s.title, s.required]),
    ).toEqual([
      ['Postings', ['postings']],
      ['Numscript script', ['script']],
    ]);
    expect(Object.keys(schema.oneOf[0].properties)).not.toContain('script');
    expect(Object.keys(schema.oneOf[1].properties)).not.toContain('postings');
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(schema);
    const postings = [{ source: 'world', destination: 'a', amount: 1, asset: 'USD' }];
    expect(validate({ postings })).toBe(true);
    expect(validate({ script: { plain: 'send [USD 1] (source = @world destination = @a)' } })).toBe(
      true,
    );
    expect(validate({ postings, script: { plain: 'x' } })).toBe(false);
    expect(validate({ metadata: {} })).toBe(false);
  });

  it("a bulk element's transaction, a v1 transaction and a pool say the same", () => {
    const bulk =
      document.paths['/api/ledger/v2/{ledger}/_bulk'].post.requestBody.content['application/json']
        .schema.items.oneOf[0].properties.data;
    expect(bulk.oneOf.map((s: { title: string }) => s.title)).toEqual([
      'Postings',
      'Numscript script',
    ]);
    const v1 =
      document.paths['/api/ledger/{ledger}/transactions'].post.requestBody.content[
        'application/json'
      ].schema;
    expect(v1.oneOf).toHaveLength(2);
    const pool =
      document.paths['/api/payments/v3/pools'].post.requestBody.content['application/json'].schema;
    expect(
      pool.oneOf.map((s: { title: string; required: string[] }) => [s.title, s.required]),
    ).toEqual([
      ['Static: its accounts', ['accountIDs', 'name']],
      ['Dynamic: a query', ['query', 'name']],
    ]);
  });
});

describe('tag groups', () => {
  it('put every tag in exactly one group, one group per service', () => {
    const groups = document['x-tagGroups'] as { name: string; tags: string[] }[];
    expect(groups.map((g) => g.name)).toEqual([
      'Ledger',
      'Webhooks',
      'Payments',
      'Auth',
      'Platform',
    ]);
    const grouped = groups.flatMap((g) => g.tags);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual(document.tags.map((t: { name: string }) => t.name).sort());
    expect(groups[0]!.tags).toContain('ledger: transactions');
    expect(groups[2]!.tags).toContain('pools');
  });
});
