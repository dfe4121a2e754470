/**
 * Reference ledger v2.4 behaviours over raw HTTP on the in-process ledger app: the 501s for what is not served,
 * `/_/info`, aggregate balances over the full query language, `sort`, and `previous` cursors that keep their page
 * size. (The same through the official SDK: test/interop/sdk-parity.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { ledgerClient } from '../support/ledger.js';
import { testEnvironment } from '../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let app: Awaited<ReturnType<typeof ledgerClient>>['app'];
let counter = 0;

const fresh = async () => {
  const name = `p${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`);
  expect(res.status, res.text).toBe(204);
  return name;
};

beforeAll(async () => {
  ({ runtime } = await testEnvironment());
  ({ call, app } = await ledgerClient(runtime));
});

describe('operations the platform does not serve', () => {
  it('answer 501 NOT_IMPLEMENTED with the reason, with or without a token', async () => {
    const ledger = await fresh();
    for (const [method, path] of [
      ['GET', '/v2/_/exporters'],
      ['POST', '/v2/_/exporters'],
      ['GET', '/v2/_/exporters/e1'],
      ['PUT', '/v2/_/exporters/e1'],
      ['GET', `/v2/${ledger}/pipelines`],
      ['POST', `/v2/${ledger}/pipelines/p1/start`],
      ['GET', '/_/metrics'],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(501);
      expect(res.body.errorCode).toBe('NOT_IMPLEMENTED');
      expect(res.body.errorMessage).toMatch(/not implemented by this platform: /);
      const anonymous = await app.request(`/api/ledger${path}`, { method });
      expect(anonymous.status, `${method} ${path} without a token`).toBe(501);
    }
    // A path that is no operation of the reference stays a 404.
    expect((await call('GET', '/v2/_/nothing-here')).status).toBe(404);
  });
});

describe('server info', () => {
  it('answers /_/info as the reference V2ConfigInfo, with experimentalFeatures', async () => {
    const res = await call('GET', '/_/info');
    expect(res.body).toEqual({
      server: 'ledger',
      version: expect.any(String),
      experimentalFeatures: [],
    });
    const wrapped = await call('GET', '/v2/_info');
    expect(wrapped.body.data.experimentalFeatures).toEqual([]);
  });
});
