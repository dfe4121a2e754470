/**
 * dummypay reads files for whoever installs it, so it is confined (docs/decisions/payments.md, "dummypay,
 * confined"): a local platform only, a configured root, no `..` or absolute path out of it, no symbolic
 * link out of it — at install, at a config update and at every read of a run.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformConfigFromVariables } from '../../../lib/config/env.js';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { type RunnerDeps, runSchedule } from '../../../lib/payments/connectors/runner.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import type { DummypaySettings } from '../../../lib/payments/domain/connectors/dummypay-directory.js';
import { paymentsStores } from '../../../lib/payments/store/stores.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient } from '../../support/payments.js';
import { TEST_BASE_URL, testTables } from '../../support/tables.js';

const base = mkdtempSync(join(tmpdir(), 'dummypay-'));
const root = join(base, 'root');
const outside = join(base, 'outside');
const account = (id: string) => ({ id, accountName: id, createdAt: '2026-11-01T00:00:00Z' });

let runtime: ServiceRuntime;
let call: PaymentsCall;

beforeAll(async () => {
  mkdirSync(join(root, 'good', 'balances'), { recursive: true });
  mkdirSync(join(root, 'linked-file'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, 'good', 'accounts.json'), JSON.stringify([account('acc-1')]));
  writeFileSync(
    join(root, 'good', 'balances', 'acc-1.json'),
    JSON.stringify({
      at: '2026-11-02T00:00:00Z',
      balances: [{ amount: '1250', currency: 'EUR/2' }],
    }),
  );
  writeFileSync(join(outside, 'accounts.json'), JSON.stringify([account('stolen')]));
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(outside, 'accounts.json'), join(root, 'linked-file', 'accounts.json'));
  ({ runtime } = await testTables({ PAYMENTS_DUMMYPAY_ROOT: root }));
  ({ call } = await paymentsClient(runtime));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const stores = () =>
  paymentsStores(
    {
      doc: createDocumentClient(runtime.connection, { bigintNumbers: true }),
      table: runtime.config.tables.payments,
      eventsTable: runtime.config.tables.events,
    },
    'default',
  );

const deps = (dummypay: DummypaySettings): RunnerDeps => ({
  fetch: globalThis.fetch,
  sleep: async () => undefined,
  now: Date.now,
  dummypay,
});

const install = (directory: string, name = `dummy-${Math.random().toString(36).slice(2, 8)}`) =>
  call('POST', '/v3/connectors/install/dummypay', { provider: 'Dummypay', name, directory });

/** Runs a connector's FETCH_ACCOUNTS schedule once; answers the outcome and the run's error. */
async function fetchAccounts(connectorID: string, dummypay: DummypaySettings) {
  const s = stores();
  const schedule = await s.schedules.get(connectorID, `fetch-accounts.${connectorID}`);
  const outcome = await runSchedule(s, schedule!, deps(dummypay));
  const runs = await call(
    'GET',
    `/v3/connectors/${connectorID}/schedules/fetch-accounts.${connectorID}/instances`,
  );
  return { outcome, error: runs.body.cursor.data[0].error as string | undefined };
}

describe('dummypay outside the local stage', () => {
  it('refuses to install it on a dev or prod platform', async () => {
    const { runtime: dev } = await testTables({ STAGE: 'dev' });
    const res = await (await paymentsClient(dev)).call('POST', '/v3/connectors/install/dummypay', {
      name: 'dummy-dev',
      directory: 'good',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage:
        "connector: dummypay reads files on the platform's own machine and is only offered by a local platform (this one is dev); install the generic connector instead",
    });
  });

  it('refuses PAYMENTS_DUMMYPAY_ROOT outside the local stage, and a relative one', () => {
    const env = { PUBLIC_BASE_URL: TEST_BASE_URL, ...runtimeTables() };
    expect(() =>
      platformConfigFromVariables({ ...env, STAGE: 'dev', PAYMENTS_DUMMYPAY_ROOT: root }),
    ).toThrow(
      "PAYMENTS_DUMMYPAY_ROOT is for the local stage only (STAGE is dev): dummypay reads this machine's files",
    );
    expect(() =>
      platformConfigFromVariables({ ...env, STAGE: 'local', PAYMENTS_DUMMYPAY_ROOT: 'data/x' }),
    ).toThrow('PAYMENTS_DUMMYPAY_ROOT must be an absolute path (got "data/x")');
  });

  it('refuses it on a local platform without a root', async () => {
    const { runtime: bare } = await testTables();
    const res = await (await paymentsClient(bare)).call('POST', '/v3/connectors/install/dummypay', {
      name: 'dummy-bare',
      directory: 'good',
    });
    expect(res.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage:
        'connector: dummypay is disabled on this platform (no PAYMENTS_DUMMYPAY_ROOT is set)',
    });
  });

  it('fails the run of a dummypay connector when the runner is not local, reading nothing', async () => {
    const id = (await install('good')).body.data as string;
    const run = await fetchAccounts(id, { stage: 'prod', root });
    expect(run.outcome).toBe('failed');
    expect(run.error).toContain('only offered by a local platform (this one is prod)');
    expect(await stores().accounts.get(accountId(id, 'acc-1'))).toBeUndefined();
  });
});

describe('dummypay within its root', () => {
  const outsideMessage = `body.directory: must lie within the dummypay root ${root} (a path relative to it, without .. out of it)`;

  it('installs a directory inside the root and reads its accounts and balances', async () => {
    const res = await install('good');
    expect(res.status, res.text).toBe(202);
    const id = res.body.data as string;
    const run = await fetchAccounts(id, { stage: 'local', root });
    expect(run).toEqual({ outcome: 'done', error: undefined });
    const got = await call('GET', `/v3/accounts/${accountId(id, 'acc-1')}/balances`);
    expect(got.body.cursor.data.map((b: { balance: bigint }) => b.balance)).toEqual([1250n]);
  });

  it('refuses .. out of the root, an absolute path elsewhere and a control character (nothing installed)', async () => {
    const before = (await call('GET', '/v3/connectors?pageSize=100')).body.cursor.data.length;
    for (const directory of ['../outside', 'good/../../outside', outside, '/etc'])
      expect((await install(directory)).body).toEqual({
        errorCode: 'VALIDATION',
        errorMessage: outsideMessage,
      });
    expect((await install('good\0')).body.errorMessage).toBe(
      'body.directory: must not contain control characters',
    );
    expect((await call('GET', '/v3/connectors?pageSize=100')).body.cursor.data).toHaveLength(
      before,
    );
  });

  it('accepts an absolute path inside the root', async () => {
    expect((await install(join(root, 'good'))).status).toBe(202);
  });

  it('refuses a directory that is a symbolic link out of the root', async () => {
    expect((await install('escape')).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body.directory: leads outside the dummypay root through a symbolic link',
    });
  });

  it('refuses a config update that leaves the root', async () => {
    const id = (await install('good', 'dummy-upd')).body.data as string;
    const res = await call('PATCH', `/v3/connectors/${id}/config`, {
      name: 'dummy-upd',
      directory: '../outside',
    });
    expect(res.body).toEqual({ errorCode: 'VALIDATION', errorMessage: outsideMessage });
    const config = await call('GET', `/v3/connectors/${id}/config`);
    expect(config.body.data.directory).toBe('good');
  });

  it('fails a run whose file is a symbolic link out of the root, reading nothing from it', async () => {
    const id = (await install('linked-file')).body.data as string;
    const run = await fetchAccounts(id, { stage: 'local', root });
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe(
      'provider unreachable: dummypay: accounts.json leads outside the dummypay root (a symbolic link)',
    );
    expect(await stores().accounts.get(accountId(id, 'stolen'))).toBeUndefined();
  });

  it('fails a run whose directory became a link out of the root after install', async () => {
    mkdirSync(join(root, 'swapped'));
    const id = (await install('swapped')).body.data as string;
    rmSync(join(root, 'swapped'), { recursive: true });
    symlinkSync(outside, join(root, 'swapped'));
    const run = await fetchAccounts(id, { stage: 'local', root });
    expect(run.outcome).toBe('failed');
    expect(run.error).toContain('accounts.json leads outside the dummypay root');
    expect(await stores().accounts.get(accountId(id, 'stolen'))).toBeUndefined();
  });

  it('never reads a balances file named by an account id that is a path', async () => {
    mkdirSync(join(root, 'sneaky', 'balances'), { recursive: true });
    writeFileSync(join(root, 'sneaky', 'accounts.json'), JSON.stringify([account('../../x')]));
    const id = (await install('sneaky')).body.data as string;
    const run = await fetchAccounts(id, { stage: 'local', root });
    expect(run.outcome).toBe('failed');
    expect(run.error).toBe('provider answered 404: no such file');
  });
});

function runtimeTables(): Record<string, string> {
  const t = runtime.config.tables;
  return {
    AUTH_TABLE: t.auth,
    LEDGER_TABLE: t.ledger,
    EVENTS_TABLE: t.events,
    WEBHOOKS_TABLE: t.webhooks,
    PAYMENTS_TABLE: t.payments,
    PLATFORM_TABLE: t.platform,
  };
}
