import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { appsWithoutIo as appsWithoutIoAt } from '../../infra/openapi-assets.js';
import type { OpenApiDocument } from '../../lib/openapi/document.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

export const TEST_BASE_URL = 'https://platform.example.com';

/** The apps as the functions build them, with no I/O (infra/openapi-assets.ts), on TEST_BASE_URL. */
export const appsWithoutIo = () => appsWithoutIoAt(TEST_BASE_URL);

/** Hono's `/v2/:ledger` → OpenAPI's `/v2/{ledger}`. */
export const openApiPathOf = (honoPath: string) =>
  honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

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
