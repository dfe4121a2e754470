import { beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_VERSION } from '../../../lib/openapi/version.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { tableProbes } from '../../../lib/runtime/table-probes.js';
import { createVersionsApp } from '../../../lib/runtime/versions.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;

beforeAll(async () => {
  ({ runtime } = await testTables());
});

describe('GET /versions (AWS probes: each service table is ACTIVE)', () => {
  it('reports every service healthy when its table answers', async () => {
    const app = createVersionsApp({
      env: 'dev',
      region: 'eu-west-1',
      probes: tableProbes(runtime.doc, runtime.config),
    });
    const res = await app.request('/versions');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      env: 'dev',
      region: 'eu-west-1',
      versions: ['auth', 'ledger', 'webhooks', 'payments'].map((name) => ({
        name,
        version: PLATFORM_VERSION,
        health: true,
      })),
    });
  });

  it('reports a service whose table is missing as unhealthy, and the others healthy', async () => {
    const config = {
      ...runtime.config,
      tables: { ...runtime.config.tables, payments: 'no-such-table' },
    };
    const app = createVersionsApp({
      env: 'dev',
      region: 'eu-west-1',
      probes: tableProbes(runtime.doc, config),
    });
    const body = (await (await app.request('/versions')).json()) as {
      versions: Array<{ name: string; health: boolean }>;
    };
    expect(body.versions.map((v) => [v.name, v.health])).toEqual([
      ['auth', true],
      ['ledger', true],
      ['webhooks', true],
      ['payments', false],
    ]);
  });
});
