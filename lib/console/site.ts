/**
 * The console's site: `/console` (the page) and `/console/assets/<content-hashed file>`. One small Hono app,
 * mounted by the local gateway (infra/local/gateway.ts) and, in AWS, by the console function
 * (functions/console.ts). It is given a way to get the built files, so it serves them the same whether they
 * were bundled at start-up or read from a deployment's build output.
 */
import { type Context, Hono } from 'hono';
import { createLogger, type Logger } from '../observability/logger.js';
import { ASSETS_PATH, type ConsoleAsset, type ConsoleAssets } from './assets.js';

/**
 * Scripts, styles and calls from this origin only, nothing inline, no framing, no form posted anywhere: the
 * page holds a bearer token, so what can run on it is kept to what the platform itself served.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** `logger` hears why the console could not be served (a failed build); errors only by default. */
export function createConsoleSite(
  load: () => Promise<ConsoleAssets>,
  logger: Logger = createLogger('error'),
): Hono {
  const site = new Hono();
  // The page is small and names the current assets: always revalidated. The assets never change under a name.
  const page = async (c: Context) => send(c, (await load()).index, 'no-cache');
  site.get('/console', page);
  site.get('/console/', page);
  site.get(`${ASSETS_PATH}/:file`, async (c) => {
    const asset = (await load()).files.get(c.req.param('file'));
    if (!asset) return notFound(c.req.path);
    return send(c, asset, 'public, max-age=31536000, immutable');
  });
  site.onError((err) => {
    logger.log('error', 'console assets unavailable', { error: err.message });
    return Response.json(
      { errorCode: 'INTERNAL', errorMessage: 'the console is not available: its build failed' },
      { status: 500 },
    );
  });
  return site;
}

function send(c: Context, asset: ConsoleAsset, cacheControl: string): Response {
  const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'content-type': asset.contentType,
    'cache-control': cacheControl,
    vary: 'accept-encoding',
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  const body = gzip ? asset.gzip : asset.body;
  return new Response(c.req.method === 'HEAD' ? null : body, { status: 200, headers });
}

function notFound(path: string): Response {
  return Response.json(
    { errorCode: 'NOT_FOUND', errorMessage: `no console asset at ${path}` },
    { status: 404 },
  );
}
