import type { Context, Hono } from 'hono';
import type { HonoTypes } from '../http/types.js';
import { withBaseUrl } from './base-url.js';
import type { DocumentSource, ServiceDocumentSpec } from './document-source.js';

/** Served with the documents: they change only with a deployment. */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300';

/** The path every service serves its own document at (`/api/<service>/openapi.json`), public. */
export const DOCUMENT_PATH = '/openapi.json';

/**
 * `GET /openapi.json` on a service app: the document of that app's routes from `source`, asked on the first
 * request (every route is registered by then) and kept. Register it before the bearer check: it is public.
 */
export function serveDocument(
  app: Hono<HonoTypes>,
  spec: ServiceDocumentSpec,
  options: { source: DocumentSource; baseUrl: string },
): void {
  const render = async () =>
    JSON.stringify(withBaseUrl(await options.source(spec, app), options.baseUrl));
  app.get(DOCUMENT_PATH, cachedJson(render));
}

/** A handler answering one JSON text, computed once (again after a failure). */
export function cachedJson(render: () => Promise<string>) {
  let text: Promise<string> | undefined;
  return async (c: Context) => {
    text ??= render().catch((err) => {
      text = undefined;
      throw err;
    });
    return c.body(await text, 200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': DOCUMENT_CACHE_CONTROL,
    });
  };
}
