/**
 * Open banking (docs/api.md §6): a payment service user registered at a dummypay connector, a link attempt followed
 * to the platform's callback (no token: its state authenticates it), the connection it makes, its renewal and
 * removal; the generic connector refuses it (its API has no users).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HonoTypes } from '../../../lib/http/types.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const root = mkdtempSync(join(tmpdir(), 'open-banking-'));
mkdirSync(join(root, 'bank'));
let runtime: ServiceRuntime;
let call: PaymentsCall;
let app: Hono<HonoTypes>;

beforeAll(async () => {
  ({ runtime } = await testTables({ PAYMENTS_DUMMYPAY_ROOT: root }));
  ({ call, app } = await paymentsClient(runtime));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function dummypay(): Promise<string> {
  const res = await call('POST', '/v3/connectors/install/dummypay', {
    name: `dummy-${Math.random().toString(36).slice(2, 8)}`,
    directory: 'bank',
  });
  expect(res.status, res.text).toBe(202);
  return res.body.data as string;
}

async function user(): Promise<string> {
  const res = await call('POST', '/v3/payment-service-users', { name: 'Alice' });
  return res.body.data as string;
}

/** Follows a link as the user's browser would, without a token, stopping at the first answer. */
async function follow(link: string): Promise<Response> {
  const url = new URL(link);
  expect(`${url.protocol}//${url.host}`).toBe(runtime.config.publicBaseUrl);
  return app.request(`${url.pathname}${url.search}`);
}

describe('open banking through dummypay', () => {
  it('registers a user, links their bank through the callback, renews and ends the connection', async () => {
    const connectorID = await dummypay();
    const psu = await user();
    const base = `/v3/payment-service-users/${psu}/connectors/${connectorID}`;
    const noUser = await call('POST', `${base}/create-link`, {
      clientRedirectURL: 'https://app.example.com/done',
    });
    expect(noUser.body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: `payment service user ${psu} was not forwarded to connector ${connectorID}`,
    });
    expect((await call('POST', `${base}/forward`)).status).toBe(204);
    const twice = await call('POST', `${base}/forward`);
    expect(twice.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: `payment service user ${psu} already exists on this connector`,
    });

    const created = await call('POST', `${base}/create-link`, {
      applicationName: 'Acme',
      clientRedirectURL: 'https://app.example.com/done?from=bank',
    });
    expect(created.status, created.text).toBe(201);
    const { attemptID, link } = created.body as { attemptID: string; link: string };
    const pending = await call('GET', `${base}/link-attempts/${attemptID}`);
    const attempt = {
      id: attemptID,
      psuID: psu,
      connectorID,
      createdAt: pending.body.data.createdAt,
      status: 'pending',
      clientRedirectURL: 'https://app.example.com/done?from=bank',
    };
    // Wrapped as the reference's server answers it, and unwrapped as SDK 7.0.1 reads it.
    expect(pending.body).toEqual({ ...attempt, data: attempt });

    // A callback without the attempt's state is not the provider's: nothing happens.
    const forged = new URL(link);
    forged.searchParams.set('state', 'guessed');
    expect((await follow(forged.toString())).status).toBe(404);
    const back = await follow(link);
    expect(back.status, `${link} ${await back.clone().text()}`).toBe(307);
    const redirect = new URL(back.headers.get('location')!);
    const connectionID = redirect.searchParams.get('connectionID')!;
    expect(connectionID).toMatch(/^[0-9a-f-]{36}$/);
    expect(`${redirect.origin}${redirect.pathname}`).toBe('https://app.example.com/done');
    expect(Object.fromEntries(redirect.searchParams)).toEqual({
      from: 'bank',
      attemptID,
      status: 'completed',
      connectionID,
    });
    expect((await call('GET', `${base}/link-attempts/${attemptID}`)).body.data.status).toBe(
      'completed',
    );
    const replayed = await follow(link);
    expect(replayed.status).toBe(400);

    const renewed = await call('POST', `${base}/connections/${connectionID}/update-link`, {
      clientRedirectURL: 'https://app.example.com/renewed',
    });
    expect(renewed.status, renewed.text).toBe(201);
    const again = await follow(`${renewed.body.link}&noRedirect=true`);
    expect(again.status).toBe(204);
    expect(
      (await call('GET', `${base}/link-attempts/${renewed.body.attemptID}`)).body.data.status,
    ).toBe('completed');

    const missing = await call('DELETE', `${base}/connections/not-a-connection`);
    expect(missing.body).toEqual({
      errorCode: 'NOT_FOUND',
      errorMessage: 'connection not-a-connection not found',
    });
    const ended = await call('DELETE', `${base}/connections/${connectionID}`);
    expect(ended.status).toBe(202);
    expect((await call('GET', `/v3/tasks/${ended.body.data.taskID}`)).body.data.status).toBe(
      'SUCCEEDED',
    );
    expect((await call('DELETE', `${base}/connections/${connectionID}`)).status).toBe(404);
    const removed = await call('DELETE', base);
    expect(removed.status).toBe(202);
    expect(
      (await call('POST', `${base}/create-link`, { clientRedirectURL: 'https://a.example/x' }))
        .status,
    ).toBe(404);
    // Registered again after its removal.
    expect((await call('POST', `${base}/forward`)).status).toBe(204);
  });

  it('records a refusal by the provider as an exited attempt', async () => {
    const connectorID = await dummypay();
    const psu = await user();
    const base = `/v3/payment-service-users/${psu}/connectors/${connectorID}`;
    await call('POST', `${base}/forward`);
    const created = await call('POST', `${base}/create-link`, {
      clientRedirectURL: 'https://app.example.com/done',
    });
    const refused = new URL(created.body.link);
    refused.searchParams.set('status', 'error');
    const back = await follow(refused.toString());
    expect(back.status).toBe(307);
    expect(new URL(back.headers.get('location')!).searchParams.get('status')).toBe('exited');
    const attempt = await call('GET', `${base}/link-attempts/${created.body.attemptID}`);
    expect(attempt.body.data).toMatchObject({
      status: 'exited',
      error: 'the provider reported status error',
    });
  });

  it('refuses a bad redirect URL, and a connector whose API has no users', async () => {
    const connectorID = await dummypay();
    const psu = await user();
    await call('POST', `/v3/payment-service-users/${psu}/connectors/${connectorID}/forward`);
    const bad = await call(
      'POST',
      `/v3/payment-service-users/${psu}/connectors/${connectorID}/create-link`,
      { clientRedirectURL: 'javascript:alert(1)' },
    );
    expect(bad.status).toBe(400);
    const generic = await call('POST', '/v3/connectors/install/generic', {
      name: 'gen-ob',
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'k',
    });
    const genericID = generic.body.data as string;
    const refused = await call(
      'POST',
      `/v3/payment-service-users/${psu}/connectors/${genericID}/forward`,
    );
    expect(refused.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: `connector ${genericID}: the generic connector has no users or bank links at its provider`,
    });
  });
});
