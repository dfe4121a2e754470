import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlinePlatformDocument, offlineServiceDocument } from '../../../infra/openapi-assets.js';
import { readVendoredScalar } from '../../../lib/openapi/scalar-asset.js';
import { httpApiEvent } from '../../support/api-gateway.js';
import {
  bundledHandler,
  deployableFunction,
  type HttpHandler,
} from '../../support/bundled-function.js';
import { testTables } from '../../support/tables.js';

/**
 * `/docs`, `/openapi.json` and the services' own `/api/<service>/openapi.json` as AWS serves them: the functions
 * bundled with the production esbuild settings, the stack's `afterBundling` commands run beside them
 * (infra/stacks/bundled-files.ts), and the bundles' handlers answering API Gateway events from those files.
 */

const authDir = mkdtempSync(join(tmpdir(), 'auth-bundle-'));
const ledgerDir = mkdtempSync(join(tmpdir(), 'ledger-bundle-'));
let auth: HttpHandler;
let ledger: HttpHandler;

beforeAll(async () => {
  await Promise.all([deployableFunction('auth', authDir), deployableFunction('ledger', ledgerDir)]);
  const { variables: env } = await testTables({});
  Object.assign(process.env, env);
  auth = await bundledHandler(authDir);
  ledger = await bundledHandler(ledgerDir);
});

afterAll(() => {
  rmSync(authDir, { recursive: true, force: true });
  rmSync(ledgerDir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  auth(httpApiEvent('GET', path, { service: 'auth', headers }), {} as Context);

describe('the API reference served by the bundled auth function', () => {
  it('keeps the documents and Scalar out of index.mjs: files beside it, read on request', async () => {
    expect(readdirSync(authDir).sort()).toEqual(['chunks', 'docs', 'index.mjs', 'openapi']);
    expect(readdirSync(join(authDir, 'openapi'))).toEqual(['auth.json']);
    expect(statSync(join(authDir, 'docs', 'scalar.js')).size).toBe(
      (await readVendoredScalar()).length,
    );
    expect(statSync(join(authDir, 'docs', 'openapi.json')).size).toBeGreaterThan(50_000);
    const bundle = readFileSync(join(authDir, 'index.mjs'), 'utf8');
    expect(bundle).not.toContain('fonts.scalar.com');
    expect(bundle.length).toBeLessThan(600_000);
  });

  it('serves the merged document with the deployment as its server', async () => {
    const res = await get('/openapi.json');
    expect(res.statusCode).toBe(200);
    const served = JSON.parse(res.body);
    const generated = await offlinePlatformDocument();
    expect(Object.keys(served.paths)).toEqual(Object.keys(generated.paths));
    expect(served.servers).toEqual([
      { url: process.env.PUBLIC_BASE_URL, description: 'This platform' },
    ]);
    expect(served.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      `${process.env.PUBLIC_BASE_URL}/api/auth/oauth/token`,
    );
  });

  it('serves the page and Scalar gzipped (under the 6 MB a Lambda may answer)', async () => {
    const page = await get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<script src="/docs/scalar.js"></script>');
    const script = await get('/docs/scalar.js', { 'accept-encoding': 'gzip, br' });
    expect(script.statusCode).toBe(200);
    expect(script.headers?.['content-encoding']).toBe('gzip');
    expect(script.isBase64Encoded).toBe(true);
    expect(script.body.length).toBeLessThan(6 * 1024 * 1024);
    const bytes = gunzipSync(Buffer.from(script.body, 'base64'));
    expect(bytes.equals(await readVendoredScalar())).toBe(true);
  });
});

describe("a service's own document, prebuilt beside its bundle", () => {
  /** The generated document with the deployment's server and token URL, as the function must serve it. */
  async function expected(service: 'auth' | 'ledger') {
    const document = await offlineServiceDocument(service);
    document.servers = [{ url: process.env.PUBLIC_BASE_URL, description: 'This platform' }];
    document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl = `${process.env.PUBLIC_BASE_URL}/api/auth/oauth/token`;
    return document;
  }

  it.each([
    ['ledger', () => ledger, () => ledgerDir],
    ['auth', () => auth, () => authDir],
  ] as const)(
    '%s: GET /api/%s/openapi.json answers the file, without a token, as the generator would',
    async (service, handler, dir) => {
      const res = await handler()(
        httpApiEvent('GET', `/api/${service}/openapi.json`, { service }),
        {} as Context,
      );
      expect(res.statusCode).toBe(200);
      expect(res.headers?.['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers?.['cache-control']).toBe('public, max-age=300');
      expect(JSON.parse(res.body)).toEqual(await expected(service));
      // The file is the generator's output before the base URL is set: what was bundled is what is served.
      const file = JSON.parse(readFileSync(join(dir(), 'openapi', `${service}.json`), 'utf8'));
      expect(Object.keys(file.paths)).toEqual(Object.keys(JSON.parse(res.body).paths));
      expect(file.servers).toEqual([
        { url: 'https://platform.invalid', description: 'This platform' },
      ]);
    },
  );

  it('the ledger bundle carries its document beside index.mjs, not inside it', () => {
    expect(readdirSync(ledgerDir).sort()).toEqual(['chunks', 'index.mjs', 'openapi']);
    expect(readdirSync(join(ledgerDir, 'openapi'))).toEqual(['ledger.json']);
    const bundle = readFileSync(join(ledgerDir, 'index.mjs'), 'utf8');
    // The generator's JSON Schema target (lib/openapi/json-schema.ts) came with it; the bundle has neither.
    expect(bundle).not.toContain('draft-2020-12');
  });
});
