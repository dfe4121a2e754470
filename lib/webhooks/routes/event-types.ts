import type { Hono } from 'hono';
import { EVENT_APP, EVENT_KINDS, EVENT_VERSION, type EventKind } from '../../../events/catalog.js';
import { EVENT_PAYLOADS } from '../../../events/payload-schemas.js';
import type { HonoTypes } from '../../http/types.js';
import type { JsonSchema } from '../../openapi/describe.js';
import { openapi } from '../../openapi/describe.js';
import type { OpenApiDocument } from '../../openapi/document.js';
import { cachedJson } from '../../openapi/serve.js';
import { eventTypeList } from './schemas.js';

/** The name of an event kind's payload among the document's schemas (routes/schemas.ts). */
const payloadSchemaName = (kind: EventKind) => `EventPayload.${kind}`;

/**
 * `GET /event-types`: the event catalogue, each kind with the JSON Schema (2020-12) of the whole body a receiver
 * gets. The payloads' schemas are the webhooks document's (generated from events/ with the rest of the document,
 * prebuilt beside the Lambda bundle), so no converter runs here; the answer is built once.
 */
export function eventTypeRoutes(
  app: Hono<HonoTypes>,
  { document }: { document: () => Promise<OpenApiDocument> },
): void {
  app.get(
    '/event-types',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listEventTypes',
        summary: 'List event types',
        description:
          'Every event kind a config may subscribe to, with the JSON Schema of the body its deliveries POST.',
        tags: ['webhooks: configs'],
        responses: { 200: { description: 'The event catalogue.', schema: eventTypeList } },
      },
    ),
    cachedJson(async () => {
      const schemas = (await document()).components?.schemas ?? {};
      return JSON.stringify({
        data: EVENT_KINDS.map((kind) => ({
          name: kind,
          app: EVENT_APP[kind],
          version: EVENT_VERSION,
          description: EVENT_PAYLOADS[kind].description,
          schema: envelopeSchema(kind, schemas[payloadSchemaName(kind)], schemas),
        })),
      });
    }),
  );
}

/** The body of a delivery of `kind`: the envelope of docs/api.md §5 around its payload. */
function envelopeSchema(
  kind: EventKind,
  payload: JsonSchema | undefined,
  schemas: Record<string, JsonSchema>,
): JsonSchema {
  if (!payload) throw new Error(`event-types: the document has no schema for ${kind}`);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: kind,
    type: 'object',
    required: ['id', 'idempotency_key', 'date', 'app', 'version', 'type', 'payload'],
    properties: {
      id: { type: 'string' },
      idempotency_key: { type: 'string' },
      date: { type: 'string', format: 'date-time' },
      app: { const: EVENT_APP[kind] },
      version: { const: EVENT_VERSION },
      type: { const: kind },
      payload: inlined(payload, schemas),
    },
    additionalProperties: false,
  };
}

/** A schema with the document's `$ref`s replaced by what they name: the answer stands alone. */
function inlined(value: unknown, schemas: Record<string, JsonSchema>, refs = 0): JsonSchema {
  return inline(value, schemas, refs) as JsonSchema;
}

function inline(value: unknown, schemas: Record<string, JsonSchema>, refs: number): unknown {
  if (Array.isArray(value)) return value.map((v) => inline(v, schemas, refs));
  if (value === null || typeof value !== 'object') return value;
  const { $ref } = value as { $ref?: unknown };
  if (typeof $ref === 'string' && $ref.startsWith(COMPONENTS)) {
    // Named schemas here never refer to themselves; the bound keeps a mistake from recursing forever.
    if (refs > 16) throw new Error('event-types: schema references nest too deeply');
    return inline(schemas[$ref.slice(COMPONENTS.length)], schemas, refs + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v, schemas, refs)]));
}

const COMPONENTS = '#/components/schemas/';
