import { gzip } from 'node:zlib';
import { Hono } from 'hono';
import type { OpenApiDocument } from './document.js';
import { referencePage, referencePolicy, SCALAR_PATH, START_PATH, startScript } from './page.js';
import { cachedJson, DOCUMENT_PATH } from './serve.js';

export interface DocsSiteSources {
  /** The merged document, as served (servers and token URL set). */
  document: () => Promise<OpenApiDocument>;
  /** Scalar's standalone bundle (vendor/scalar/). */
  scalarScript: () => Promise<Uint8Array>;
}

/** Scalar's bundle is versioned by the platform's release: a day in caches, then revalidated. */
const SCRIPT_CACHE_CONTROL = 'public, max-age=86400';

/**
 * The API reference: `GET /docs` (Scalar, configured for this platform), `GET /docs/scalar.js` (its bundle, served
 * by the platform: nothing is fetched from a CDN), `GET /docs/start.js` and `GET /openapi.json` (every service's document in one).
 * Public, like the documents it shows. Mounted by the local gateway and, in AWS, by the auth function.
 */
export function createDocsSite(sources: DocsSiteSources): Hono {
  const site = new Hono();
  const document = once(sources.document);
  site.get(
    DOCUMENT_PATH,
    cachedJson(async () => JSON.stringify(await document())),
  );
  site.get('/docs', async (c) => {
    const servers = ((await document()).servers ?? []) as { url: string }[];
    return c.html(referencePage(), 200, {
      'cache-control': 'no-cache',
      'content-security-policy': referencePolicy(servers.map((s) => new URL(s.url).origin)),
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
  });
  site.get(START_PATH, (c) =>
    c.body(startScript(), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
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

/** `read`'s answer, asked once (again after a failure). */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let ready: Promise<T> | undefined;
  return () => {
    ready ??= read().catch((err) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };
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
