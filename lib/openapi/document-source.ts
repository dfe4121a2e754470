import { readFile } from 'node:fs/promises';
import type { RouterRoute } from 'hono/types';
import { SERVICES, type Service } from '../tokens/scopes.js';
import type { OpenApiDocument } from './document.js';
import type { NamedSchemas } from './json-schema.js';

/**
 * The services with an OpenAPI document of their own: the four whose routes require their scopes, and the platform
 * service (`/api/platform`), whose routes require a platform token and follow roles, not scopes.
 */
export type DocumentedService = Service | 'platform';
export const DOCUMENTED_SERVICES: readonly DocumentedService[] = [...SERVICES, 'platform'];

/** What a service says of its own document (`lib/<service>/routes/schemas.ts`); its routes say the rest. */
export interface ServiceDocumentSpec {
  service: DocumentedService;
  title: string;
  description: string;
  /** The named response schemas (`components.schemas`). */
  schemas: NamedSchemas;
}

/**
 * Where a service app gets its OpenAPI document, without its base URL (the app adds it). Given by the app's
 * composition: generated from the app's own routes (`generatedDocuments`, the local platform and the tests), or
 * read from the file written when the function was bundled (`prebuiltDocuments`, the Lambda entries), so no
 * bundle carries the generator.
 */
export type DocumentSource = (
  spec: ServiceDocumentSpec,
  app: { routes: RouterRoute[] },
) => Promise<OpenApiDocument>;

/** The folder of prebuilt documents beside a service function's `index.mjs`: `openapi/<service>.json`. */
export const SERVICE_DOCUMENTS_DIR = 'openapi';

export const serviceDocumentFile = (service: DocumentedService) => `${service}.json`;

/**
 * The documents `infra/openapi-assets.ts` wrote into `dir` when the function was bundled. Read at the first
 * request for the document; the app keeps the answer (`serve.ts`).
 */
export function prebuiltDocuments(dir: URL): DocumentSource {
  return async ({ service }) =>
    JSON.parse(await readFile(new URL(serviceDocumentFile(service), dir), 'utf8'));
}
