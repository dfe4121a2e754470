import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { Hono } from 'hono';
import { createAuthApp } from '../../lib/auth/app.js';
import { createLedgerApp } from '../../lib/ledger/app.js';
import type { OpenApiDocument } from '../../lib/openapi/document.js';
import { createPaymentsApp } from '../../lib/payments/app.js';
import { createRuntime } from '../../lib/platform/runtime.js';
import { createVersionsApp } from '../../lib/platform/versions.js';
import { tableEnvironment } from '../../lib/resources/definitions.js';
import { createWebhooksApp } from '../../lib/webhooks/app.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

export const TEST_BASE_URL = 'https://platform.example.com';

/**
 * The four service apps and the `/versions` app, built as a function builds them, on a configuration that
 * names tables nobody reads: a document is generated from routes alone, with no I/O.
 */
export function appsWithoutIo(): { services: Record<string, Hono<any>>; versions: Hono } {
  const runtime = createRuntime({
    STAGE: 'dev',
    PUBLIC_BASE_URL: TEST_BASE_URL,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDTESTONLY',
    AWS_SECRET_ACCESS_KEY: 'test-only',
    LOG_LEVEL: 'silent',
    DELIVERIES_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/never-used',
    ...tableEnvironment('openapi-test-'),
  });
  return {
    services: {
      auth: createAuthApp({ runtime, authConfig: { clients: [], resources: [] } }),
      ledger: createLedgerApp(runtime),
      webhooks: createWebhooksApp(runtime),
      payments: createPaymentsApp(runtime),
    },
    versions: createVersionsApp({ env: 'dev', region: 'us-east-1', probes: [] }),
  };
}

/** Hono's `/v2/:ledger` → OpenAPI's `/v2/{ledger}`. */
export const openApiPathOf = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Checks real answers against the document's response schemas with a JSON Schema 2020-12 validator (ajv):
 * `#/components/schemas/<name>` references are resolved inside one schema that carries the components.
 */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'components', $defs: rebased(document.components.schemas) });
  }

  /** The validation errors of `body` as the answer `status` of `method path` (OpenAPI path), or [] when valid. */
  errors(method: string, path: string, status: number, body: unknown): string[] {
    const key = `${method} ${path} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const operation = this.document.paths[path]?.[method.toLowerCase()];
      if (!operation) throw new Error(`the document has no ${method} ${path}`);
      const response = operation.responses[String(status)] ?? operation.responses.default;
      const schema = response?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`${method} ${path} documents no JSON body for ${status}`);
      validate = this.ajv.compile(rebased(schema));
      this.compiled.set(key, validate);
    }
    return validate(body)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  }
}

function rebased<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'),
  ) as T;
}
