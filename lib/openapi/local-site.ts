import type { Hono } from 'hono';
import type { RouterRoute } from 'hono/types';
import { type FetchingApp, platformDocument } from './platform-document.js';
import { createDocsSite } from './site.js';

/**
 * The site as the local gateway mounts it: the merged document from the running services (asked once, on the
 * first request for it; the services answer with their configured base URL, so the origin asked here is moot).
 */
export function localDocsSite(
  services: Record<string, FetchingApp>,
  platformApps: readonly { routes: RouterRoute[] }[],
): Hono {
  return createDocsSite({
    document: () => platformDocument(services, platformApps, 'http://127.0.0.1'),
    scalarScript: async () => (await import('./scalar-asset.js')).readVendoredScalar(),
  });
}
