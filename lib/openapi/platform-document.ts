import type { RouterRoute } from 'hono/types';
import { appDocument, mergeDocuments, type OpenApiDocument } from './document.js';
import { versionsSchemas } from './schemas.js';
import { DOCUMENT_PATH } from './serve.js';
import { PLATFORM_VERSION } from './version.js';

export interface FetchingApp {
  fetch: (request: Request) => Response | Promise<Response>;
}

/**
 * The merged document from the services' own `/api/<service>/openapi.json` (their fetch handlers, in process)
 * and the platform's routes outside any service (`GET /versions`).
 */
export async function platformDocument(
  services: Record<string, FetchingApp>,
  platformApps: readonly { routes: RouterRoute[] }[],
  origin: string,
): Promise<OpenApiDocument> {
  const documents: OpenApiDocument[] = [];
  const groups = new Map<string, string[]>();
  // The ledger first: the reference shows operations in the document's order.
  const order = ['ledger', 'webhooks', 'payments', 'auth', 'platform'];
  const ranked = Object.entries(services).sort(
    ([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99),
  );
  for (const [name, app] of ranked) {
    const res = await app.fetch(new Request(`${origin}/api/${name}${DOCUMENT_PATH}`));
    if (res.status !== 200)
      throw new Error(`openapi: ${name} answered ${res.status} for its document`);
    const document = (await res.json()) as OpenApiDocument;
    documents.push(document);
    groups.set(groupName(name), tagNames(document));
  }
  for (const app of platformApps)
    documents.push(
      await appDocument(app, {
        title: 'Platform',
        description: 'Routes outside the services.',
        version: PLATFORM_VERSION,
        schemas: versionsSchemas,
      }),
    );
  for (const document of documents.slice(ranked.length))
    groups.set('Platform', [
      ...new Set([...(groups.get('Platform') ?? []), ...tagNames(document)]),
    ]);
  const merged = mergeDocuments(documents, {
    title: 'Serverless financial platform',
    description:
      'Auth (OAuth 2.0 client credentials), ledger, webhooks and payments: the wire contract of the Formance platform; and the platform API (organizations, environments, members, personal tokens). Every service also serves its own document at `/api/<service>/openapi.json`.',
    version: PLATFORM_VERSION,
  });
  return { ...merged, 'x-tagGroups': tagGroups(groups) };
}

const groupName = (service: string) => service.charAt(0).toUpperCase() + service.slice(1);

const tagNames = (document: OpenApiDocument): string[] =>
  (document.tags ?? []).map((t: { name: string }) => t.name);

/**
 * The sidebar's sections, one per service (`x-tagGroups`, read by Scalar and Redoc): each service's tags under
 * its name. A tag in two groups would show its operations twice, so it is an error.
 */
function tagGroups(groups: Map<string, string[]>): { name: string; tags: string[] }[] {
  const owner = new Map<string, string>();
  for (const [name, tags] of groups)
    for (const tag of tags) {
      const other = owner.get(tag);
      if (other) throw new Error(`openapi: tag "${tag}" is in ${other} and ${name}`);
      owner.set(tag, name);
    }
  return [...groups].map(([name, tags]) => ({ name, tags }));
}
