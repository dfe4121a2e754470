/**
 * Providers' webhooks (docs/api.md §6): the reference's public route `/v3/connectors/webhooks/<connectorID>/…`
 * takes no token and, since no connector of this platform receives webhooks (the reference's generic connector
 * translates none), answers every call 400 naming why, decided from the id alone, writing nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HonoTypes } from '../../../lib/http/types.js';
import { connectorId } from '../../../lib/payments/domain/connectors/connector.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { paymentsClient, scanTable } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let app: Hono<HonoTypes>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ app } = await paymentsClient(runtime));
});

async function webhook(method: string, id: string, path = 'events/payment.updated') {
  const res = await app.request(`/api/payments/v3/connectors/webhooks/${id}/${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-signature': 'sha256=abc' },
    body: JSON.stringify({ id: 'tx-1', status: 'SUCCEEDED' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe("a provider's webhook", () => {
  it('is refused with 400, without a token, for every connector kind and path, and writes nothing', async () => {
    const before = (await scanTable(runtime, runtime.config.tables.payments)).length;
    const generic = connectorId('generic', randomUUID());
    const dummypay = connectorId('dummypay', randomUUID());
    const stripe = connectorId('stripe', randomUUID());
    expect(await webhook('POST', generic)).toEqual({
      status: 400,
      body: {
        errorCode: 'VALIDATION',
        errorMessage: `connector ${generic}: the generic connector receives no webhooks (its provider's data is fetched on its schedules)`,
      },
    });
    expect((await webhook('POST', dummypay, 'a')).body.errorMessage).toBe(
      `connector ${dummypay}: the dummypay connector receives no webhooks (its provider's data is fetched on its schedules)`,
    );
    expect((await webhook('POST', stripe)).body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: `connector ${stripe}: no connector of provider stripe receives webhooks`,
    });
    expect(await webhook('POST', 'not-a-connector')).toEqual({
      status: 400,
      body: { errorCode: 'VALIDATION', errorMessage: 'connectorID: not a connector id' },
    });
    expect((await scanTable(runtime, runtime.config.tables.payments)).length).toBe(before);
  });
});
