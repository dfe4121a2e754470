/**
 * Environments never meet (docs/data-model.md, "Environments: every key says which") for payments' connector-side
 * records: connectors (config, schedules, their runs, tasks, reset, uninstall), bank-account forwarding, and open
 * banking (users at a connector, link attempts, their callback, connections), in v3 and v1. A token of environment B
 * gets 404 for each of A's, lists none of them, and cannot use them; A's records are unchanged after B's attempts.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentOfKey } from '../../../lib/environments/key-scope.js';
import type { HonoTypes } from '../../../lib/http/types.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../../lib/payments/app.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { environmentToken } from '../../support/environment-tokens.js';
import { jsonCaller } from '../../support/json-call.js';
import { type PaymentsCall, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const A = 'conn-env-a';
const B = 'conn-env-b';
const root = mkdtempSync(join(tmpdir(), 'env-connectors-'));
mkdirSync(join(root, 'bank'));
let runtime: ServiceRuntime;
let app: Hono<HonoTypes>;
const as: Record<string, PaymentsCall> = {};

beforeAll(async () => {
  ({ runtime } = await testTables({ PAYMENTS_DUMMYPAY_ROOT: root }));
  app = createPaymentsApp(runtime, { documents: generatedDocuments });
  for (const env of [A, B])
    as[env] = jsonCaller(app, '/api/payments', await environmentToken(runtime, env));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function dummypay(env: string): Promise<string> {
  const res = await as[env]!('POST', '/v3/connectors/install/dummypay', {
    name: `dummy-${Math.random().toString(36).slice(2, 8)}`,
    directory: 'bank',
  });
  expect(res.status, res.text).toBe(202);
  return res.body.data as string;
}

/** Each path answers A 200 and B 404. */
async function onlyA(paths: string[]) {
  for (const path of paths) {
    expect((await as[A]!('GET', path)).status, path).toBe(200);
    const theirs = await as[B]!('GET', path);
    expect(theirs.status, path).toBe(404);
    expect(theirs.body.errorCode, path).toBe('NOT_FOUND');
  }
}

describe("environment B and A's connectors", () => {
  it('answers 404 to B for A connector, its config, schedules, runs and tasks, lists none, and changes nothing', async () => {
    const id = await dummypay(A);
    const schedules = await as[A]!('GET', `/v3/connectors/${id}/schedules`);
    const schedule = schedules.body.cursor.data[0].id as string;
    const reset = await as[A]!('POST', `/v3/connectors/${id}/reset`);
    expect(reset.status).toBe(202);
    const task = reset.body.data as string;
    await onlyA([
      `/v3/connectors/${id}/config`,
      `/v3/connectors/${id}/schedules`,
      `/v3/connectors/${id}/capabilities`,
      `/v3/connectors/${id}/schedules/${schedule}`,
      `/v3/connectors/${id}/schedules/${schedule}/instances`,
      `/v3/tasks/${task}`,
    ]);

    expect(
      (await as[B]!('PATCH', `/v3/connectors/${id}/config`, { name: 'taken', directory: 'bank' }))
        .status,
    ).toBe(404);
    expect((await as[B]!('POST', `/v3/connectors/${id}/reset`)).status).toBe(404);
    expect((await as[B]!('DELETE', `/v3/connectors/${id}`)).status).toBe(404);
    const listed = await as[B]!('GET', '/v3/connectors?pageSize=1000');
    expect(listed.body.cursor.data.map((c: { id: string }) => c.id)).not.toContain(id);
    const v1 = await as[B]!('GET', '/connectors');
    expect(v1.body.data.map((c: { connectorID: string }) => c.connectorID)).not.toContain(id);
    expect((await as[B]!('GET', `/connectors/dummypay/${id}/config`)).status).toBe(404);

    const mine = await as[A]!('GET', `/v3/connectors/${id}/config`);
    expect(mine.body.data.name).not.toBe('taken');
    expect((await as[A]!('GET', '/v3/connectors?pageSize=1000')).body.cursor.data).toContainEqual(
      expect.objectContaining({ id, scheduledForDeletion: false }),
    );
  });
});

describe("environment B and A's forwarding", () => {
  it("B cannot forward A's bank account, nor its own to A's connector; nothing is written", async () => {
    const connectorA = await dummypay(A);
    const connectorB = await dummypay(B);
    const bankA = await as[A]!('POST', '/v3/bank-accounts', {
      name: 'a',
      accountNumber: '1234567',
    });
    const bankB = await as[B]!('POST', '/v3/bank-accounts', {
      name: 'b',
      accountNumber: '7654321',
    });
    const aID = bankA.body.data as string;
    const bID = bankB.body.data as string;
    const refused = [
      await as[B]!('POST', `/v3/bank-accounts/${aID}/forward`, { connectorID: connectorB }),
      await as[B]!('POST', `/v3/bank-accounts/${bID}/forward`, { connectorID: connectorA }),
      await as[B]!('POST', `/bank-accounts/${aID}/forward`, { connectorID: connectorB }),
    ];
    expect(refused.map((r) => [r.status, r.body.errorMessage])).toEqual([
      [404, `bank account ${aID} not found`],
      [404, `connector ${connectorA} not found`],
      [404, `bank account ${aID} not found`],
    ]);
    expect((await as[A]!('GET', `/v3/bank-accounts/${aID}`)).body.data.relatedAccounts).toEqual([]);
    expect((await as[B]!('GET', `/v3/bank-accounts/${bID}`)).body.data.relatedAccounts).toEqual([]);
    // A forwards its own: the account it makes is A's only.
    const forwarded = await as[A]!('POST', `/v3/bank-accounts/${aID}/forward`, {
      connectorID: connectorA,
    });
    expect(forwarded.status, forwarded.text).toBe(202);
    const related = (await as[A]!('GET', `/v3/bank-accounts/${aID}`)).body.data.relatedAccounts;
    expect(related).toHaveLength(1);
    await onlyA([
      `/v3/accounts/${related[0].accountID}`,
      `/v3/tasks/${forwarded.body.data.taskID}`,
    ]);
    const accounts = await as[B]!('GET', '/v3/accounts?pageSize=1000');
    expect(accounts.body.cursor.data.map((a: { id: string }) => a.id)).not.toContain(
      related[0].accountID,
    );
  });
});

describe("environment B and A's open banking", () => {
  it("answers 404 to B for A's user at a connector, its attempts and connections, and its callback under B's name", async () => {
    const connector = await dummypay(A);
    const psu = (await as[A]!('POST', '/v3/payment-service-users', { name: 'Alice' })).body
      .data as string;
    const base = `/v3/payment-service-users/${psu}/connectors/${connector}`;
    expect((await as[A]!('POST', `${base}/forward`)).status).toBe(204);
    const created = await as[A]!('POST', `${base}/create-link`, {
      clientRedirectURL: 'https://app.example.com/done',
    });
    expect(created.status, created.text).toBe(201);
    const { attemptID, link } = created.body as { attemptID: string; link: string };
    await onlyA([`${base}/link-attempts/${attemptID}`]);
    const redirect = { clientRedirectURL: 'https://app.example.com/b' };
    for (const [method, path, body] of [
      ['POST', `${base}/forward`, undefined],
      ['POST', `${base}/create-link`, redirect],
      ['DELETE', base, undefined],
    ] as const)
      expect((await as[B]!(method, path, body)).status, `${method} ${path}`).toBe(404);

    // The callback names its environment: A's attempt under B's name is not found, and stays pending.
    const url = new URL(link);
    expect(url.pathname).toContain(`/open-banking/${A}/`);
    const swapped = url.pathname.replace(`/open-banking/${A}/`, `/open-banking/${B}/`);
    expect((await app.request(`${swapped}${url.search}`)).status).toBe(404);
    expect((await as[A]!('GET', `${base}/link-attempts/${attemptID}`)).body.data.status).toBe(
      'pending',
    );
    const back = await app.request(`${url.pathname}${url.search}`);
    expect(back.status).toBe(307);
    const connection = new URL(back.headers.get('location')!).searchParams.get('connectionID')!;
    expect(
      (await as[B]!('DELETE', `${base}/connections/${connection}`)).status,
      'B ends A connection',
    ).toBe(404);
    expect(
      (await as[B]!('POST', `${base}/connections/${connection}/update-link`, redirect)).status,
    ).toBe(404);
    // Still A's: A can end it.
    expect((await as[A]!('DELETE', `${base}/connections/${connection}`)).status).toBe(202);

    for (const item of await scanTable(runtime, runtime.config.tables.payments)) {
      const env = environmentOfKey(String(item.pk));
      expect(env, String(item.pk)).toBeDefined();
      if (String(item.pk).includes(psu) || item.id === attemptID) expect(env).toBe(A);
    }
  });
});
