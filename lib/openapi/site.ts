import { gzip } from 'node:zlib';
import { Hono } from 'hono';
import type { OpenApiDocument } from './document.js';
import { referencePage, SCALAR_PATH } from './page.js';
import { cachedJson, DOCUMENT_PATH } from './serve.js';

export interface DocsSiteSources {
  /** The merged document, as served (servers and token URL set). */
  document: () => Promise<OpenApiDocument>;
  /** The Scalar standalone bundle (`@scalar/api-reference`'s `dist/browser/standalone.js`). */
  scalarScript: () => Promise<Uint8Array>;
}

/** Scalar's bundle is versioned by the platform's release: a day in caches, then revalidated. */
const SCRIPT_CACHE_CONTROL = 'public, max-age=86400';

/**
 * The API reference: `GET /docs` (Scalar, configured for this platform), `GET /docs/scalar.js` (its bundle, served
 * by the platform: nothing is fetched from a CDN) and `GET /openapi.json` (every service's document in one).
 * Public, like the documents it shows. Mounted by the local gateway and, in AWS, by the auth function.
 */
export function createDocsSite(sources: DocsSiteSources): Hono {
  const site = new Hono();
  site.get(
    DOCUMENT_PATH,
    cachedJson(async () => JSON.stringify(await sources.document())),
  );
  site.get('/docs', (c) => c.html(referencePage(), 200, { 'cache-control': 'no-cache' }));
  site.get('/docs/', (c) => c.redirect('/docs', 301));
  const script = compressedOnce(sources.scalarScript);
  site.get(SCALAR_PATH, async (c) => {
    const { plain, gzipped } = await script();
    const headers: Record<string, string> = {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': SCRIPT_CACHE_CONTROL,
      vary: 'accept-encoding',
    };
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? ''))
      return c.body(gzipped, 200, { ...headers, 'content-encoding': 'gzip' });
    return c.body(plain, 200, headers);
  });
  return site;
}

/** The bundle read and gzipped on first request, then kept (4.3 MB, 1.3 MB gzipped: Lambda answers at most 6 MB). */
function compressedOnce(read: () => Promise<Uint8Array>) {
  let ready:
    | Promise<{ plain: Uint8Array<ArrayBuffer>; gzipped: Uint8Array<ArrayBuffer> }>
    | undefined;
  return () => {
    ready ??= (async () => {
      const plain = new Uint8Array(await read());
      const gzipped = await new Promise<Buffer>((resolve, reject) =>
        gzip(plain, (err, out) => (err ? reject(err) : resolve(out))),
      );
      return { plain, gzipped: new Uint8Array(gzipped) };
    })().catch((err) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };
}
