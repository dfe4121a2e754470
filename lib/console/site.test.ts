/**
 * The console's build and its site without a server (`app.request`): the files it serves, their headers, the
 * deployment's files on disk served the same, a failed build answered in the contract's shape, and the size
 * budget docs/guides/console.md states.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.js';
import { type ConsoleAssets, consoleSizes } from './assets.js';
import { buildConsole } from './build.js';
import { consoleFilesLoader, writeConsoleFiles } from './files.js';
import { CONSOLE_CSP, createConsoleSite } from './site.js';

/** What "small" means for the console: everything a first visit downloads, gzip. */
const FIRST_VISIT_GZIP_BUDGET_BYTES = 25_000;

describe('console site', () => {
  let assets: ConsoleAssets;
  let dir: string;

  beforeAll(async () => {
    assets = await buildConsole();
    dir = mkdtempSync(join(tmpdir(), 'console-files-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds one content-hashed script and stylesheet, named by the page', () => {
    const names = [...assets.files.keys()];
    const stylesheet = names.find((n) => n.endsWith('.css'));
    const script = names.find((n) => n.endsWith('.js'));
    expect(names).toHaveLength(2);
    expect(stylesheet).toMatch(/^app-[A-Z0-9]{8}\.css$/);
    expect(script).toMatch(/^app-[A-Z0-9]{8}\.js$/);
    const html = new TextDecoder().decode(assets.index.body);
    expect(html).toContain(`<link rel="stylesheet" href="/console/assets/${stylesheet}">`);
    expect(html).toContain(`<script type="module" src="/console/assets/${script}"></script>`);
    // Nothing fetched from anywhere else: no absolute URL in the page or the bundle.
    for (const asset of [assets.index, ...assets.files.values()])
      expect(new TextDecoder().decode(asset.body)).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });

  it('stays within its size budget', () => {
    const { totalGzipBytes } = consoleSizes(assets);
    expect(totalGzipBytes).toBeLessThanOrEqual(FIRST_VISIT_GZIP_BUDGET_BYTES);
  });

  it('serves the page and its assets, gzip when asked, with security and cache headers', async () => {
    const site = createConsoleSite(async () => assets);
    for (const path of ['/console', '/console/']) {
      const res = await site.request(path);
      expect(res.status).toBe(200);
      expect(Object.fromEntries(res.headers)).toEqual({
        'cache-control': 'no-cache',
        'content-security-policy': CONSOLE_CSP,
        'content-type': 'text/html; charset=utf-8',
        'referrer-policy': 'no-referrer',
        vary: 'accept-encoding',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
      });
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(assets.index.body);
    }
    for (const [name, asset] of assets.files) {
      const res = await site.request(`/console/assets/${name}`, {
        headers: { 'accept-encoding': 'gzip, deflate, br' },
      });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toBe(asset.contentType);
      expect(new Uint8Array(gunzipSync(new Uint8Array(await res.arrayBuffer())))).toEqual(
        asset.body,
      );
    }
    const head = await site.request('/console', { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    const missing = await site.request('/console/assets/app.js');
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { errorCode: 'NOT_FOUND', errorMessage: 'no console asset at /console/assets/app.js' },
    ]);
  });

  it("serves a deployment's files from disk exactly as built", async () => {
    writeConsoleFiles(assets, dir);
    expect(readdirSync(dir).sort()).toEqual(['assets', 'index.html']);
    const site = createConsoleSite(consoleFilesLoader(dir));
    const page = await site.request('/console');
    expect(new Uint8Array(await page.arrayBuffer())).toEqual(assets.index.body);
    for (const [name, asset] of assets.files) {
      const res = await site.request(`/console/assets/${name}`);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(asset.body);
    }
  });

  it('answers 500 in the contract shape, and logs why, when the assets cannot be had', async () => {
    const lines: string[] = [];
    const site = createConsoleSite(
      async () => {
        throw new Error('console/main.tsx: syntax error');
      },
      createLogger('error', (line) => lines.push(line)),
    );
    const res = await site.request('/console');
    expect([res.status, await res.json()]).toEqual([
      500,
      { errorCode: 'INTERNAL', errorMessage: 'the console is not available: its build failed' },
    ]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'console assets unavailable',
        error: 'console/main.tsx: syntax error',
      }),
    ]);
  });
});
