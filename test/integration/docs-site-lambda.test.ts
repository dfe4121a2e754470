import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../infra/bundling.js';
import { offlinePlatformDocument } from '../../infra/openapi-assets.js';
import { docsSiteAssets } from '../../infra/stacks/docs-site.js';
import { scalarPackageFile } from '../../lib/openapi/scalar-asset.js';
import { httpApiEvent } from '../support/api-gateway.js';
import { testEnvironment } from '../support/tables.js';

/**
 * `/docs` and `/openapi.json` as AWS serves them: the auth function bundled with the production esbuild
 * settings, the stack's `afterBundling` commands run beside it (infra/stacks/docs-site.ts), and the bundle's
 * handler answering API Gateway events from those files.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResult>;
const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'auth-bundle-'));
let handler: Handler;

beforeAll(async () => {
  await build(lambdaBuildOptions(join(root, 'functions/auth.ts'), join(dir, 'index.mjs')));
  for (const command of docsSiteAssets(root, dir)) await run('bash', ['-c', command]);
  const { env } = await testEnvironment({});
  Object.assign(process.env, env);
  ({ handler } = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as {
    handler: Handler;
  });
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) =>
  handler(httpApiEvent('GET', path, { service: 'auth', headers }), {} as Context);

describe('the API reference served by the bundled auth function', () => {
  it('keeps the document and Scalar out of index.mjs: files beside it, read on request', () => {
    expect(statSync(join(dir, 'docs', 'scalar.js')).size).toBe(statSync(scalarPackageFile()).size);
    expect(statSync(join(dir, 'docs', 'openapi.json')).size).toBeGreaterThan(50_000);
    const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
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
    expect(bytes.equals(readFileSync(scalarPackageFile()))).toBe(true);
  });
});
