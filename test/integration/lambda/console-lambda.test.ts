import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Context } from 'aws-lambda';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../../lib/console/site.js';
import { httpApiEvent } from '../../support/api-gateway.js';
import {
  bundledHandler,
  deployableFunction,
  type HttpHandler,
} from '../../support/bundled-function.js';

/**
 * `/console` as AWS serves it: the console function bundled with the production esbuild settings, the stack's
 * `afterBundling` command run beside it (`npm run console:build` into the bundle's directory,
 * infra/stacks/bundled-files.ts), and the bundle's handler answering API Gateway events from those files.
 */

const dir = mkdtempSync(join(tmpdir(), 'console-bundle-'));
let handler: HttpHandler;
let metafile: Metafile;

beforeAll(async () => {
  metafile = await deployableFunction('console', dir);
  // What the stack sets (infra/stacks/functions.ts); the console reads nothing else.
  Object.assign(process.env, {
    STAGE: 'dev',
    LOG_LEVEL: 'info',
    METRICS_NAMESPACE: 'Platform/dev',
  });
  handler = await bundledHandler(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) =>
  handler(httpApiEvent('GET', path, { service: 'console', headers }), {} as Context);

/** The assets' names, from the directory the function was deployed with. */
const assetNamed = (extension: string) =>
  readdirSync(join(dir, 'assets')).find((name) => name.endsWith(extension))!;

describe('the console served by its bundled function', () => {
  it('ships the page and its content-hashed assets beside a small index.mjs', () => {
    expect(readdirSync(dir).sort()).toEqual(['assets', 'index.html', 'index.mjs']);
    expect(readdirSync(join(dir, 'assets')).map((n) => n.replace(/-[A-Z0-9]{8}\./, '-*.'))).toEqual(
      expect.arrayContaining(['app-*.css', 'app-*.js']),
    );
    expect(readdirSync(join(dir, 'assets'))).toHaveLength(2);
    expect(statSync(join(dir, 'index.mjs')).size).toBeLessThan(100_000);
    // Neither the console's builder (esbuild) nor its front end (Preact) is in the function.
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((i) => /node_modules\/(esbuild|preact)\//.test(i))).toEqual([]);
    expect(inputs).not.toContain('lib/console/build.ts');
    expect(inputs).toContain('lib/console/files.ts');
  });

  it('serves the page, naming its script and stylesheet, under the console policy', async () => {
    const res = await get('/console');
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers?.['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers?.['cache-control']).toBe('no-cache');
    expect(res.isBase64Encoded).toBe(false);
    expect(res.body).toBe(readFileSync(join(dir, 'index.html'), 'utf8'));
    expect(res.body).toContain(
      `<script type="module" src="/console/assets/${assetNamed('.js')}"></script>`,
    );
    expect(res.body).toContain(
      `<link rel="stylesheet" href="/console/assets/${assetNamed('.css')}">`,
    );
  });

  it('serves the script the page names, plain and gzipped, cacheable for ever', async () => {
    const path = `/console/assets/${assetNamed('.js')}`;
    const bytes = readFileSync(join(dir, 'assets', assetNamed('.js')));
    const plain = await get(path);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers?.['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers?.['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toBe(bytes.toString('utf8'));
    const gzipped = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(gzipped.statusCode).toBe(200);
    expect(gzipped.headers?.['content-encoding']).toBe('gzip');
    expect(gzipped.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(gzipped.body, 'base64')).equals(bytes)).toBe(true);
  });

  it('serves the stylesheet, and answers 404 in the contract shape for an asset it does not have', async () => {
    const css = await get(`/console/assets/${assetNamed('.css')}`);
    expect(css.statusCode).toBe(200);
    expect(css.headers?.['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe(readFileSync(join(dir, 'assets', assetNamed('.css')), 'utf8'));
    const missing = await get('/console/assets/app-00000000.js');
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: 'no console asset at /console/assets/app-00000000.js',
    });
  });
});
