/**
 * The official TypeScript SDK, unmodified, against the local platform's webhook configurations over real HTTP:
 * its OAuth flow (webhooks:read / webhooks:write), its request shapes and its strict (zod) parsing of Config.
 */
import { randomBytes } from 'node:crypto';
import type { SDK } from '@formance/formance-sdk';
import { ErrorResponse } from '@formance/formance-sdk/sdk/models/webhooks/errorresponse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startSdkPlatform } from '../support/sdk.js';

let platform: RunningPlatform;
let sdk: SDK;

beforeAll(async () => {
  ({ platform, sdk } = await startSdkPlatform());
});

afterAll(async () => {
  await platform?.stop();
});

describe('@formance/formance-sdk 7 against webhook configurations', () => {
  it('inserts, lists, gets, activates, deactivates, changes the secret of, updates and deletes a config', async () => {
    // http is allowed: the local platform runs in the `local` stage.
    const endpoint = 'http://127.0.0.1:9/sdk-hook';
    const inserted = await sdk.webhooks.v1.insertConfig({ endpoint, eventTypes: ['Ledger.Committed_Transactions'] });
    expect(inserted.statusCode).toBe(200);
    const config = inserted.configResponse!.data;
    expect(config).toMatchObject({ endpoint, eventTypes: ['ledger.committed_transactions'], active: true });
    expect(config.createdAt).toBeInstanceOf(Date);
    expect(config.updatedAt).toBeInstanceOf(Date);
    expect(config.secret).toMatch(/^whsec_/);

    const many = await sdk.webhooks.v1.getManyConfigs({});
    expect(many.configsResponse!.cursor.data.map((c) => c.id)).toContain(config.id);
    expect(many.configsResponse!.cursor.hasMore).toBe(false);
    const byId = await sdk.webhooks.v1.getManyConfigs({ id: config.id });
    expect(byId.configsResponse!.cursor.data).toEqual([config]);
    const byEndpoint = await sdk.webhooks.v1.getManyConfigs({ endpoint });
    expect(byEndpoint.configsResponse!.cursor.data.map((c) => c.id)).toEqual([config.id]);

    const off = await sdk.webhooks.v1.deactivateConfig({ id: config.id });
    expect(off.configResponse!.data.active).toBe(false);
    const offAgain = await sdk.webhooks.v1.deactivateConfig({ id: config.id });
    expect(offAgain.configResponse!.data.active).toBe(false);
    const on = await sdk.webhooks.v1.activateConfig({ id: config.id });
    expect(on.configResponse!.data.active).toBe(true);

    const generated = await sdk.webhooks.v1.changeConfigSecret({ id: config.id });
    expect(generated.configResponse!.data.secret).toMatch(/^whsec_/);
    expect(generated.configResponse!.data.secret).not.toBe(config.secret);
    const given = `whsec_${randomBytes(24).toString('base64')}`;
    const changed = await sdk.webhooks.v1.changeConfigSecret({ id: config.id, configChangeSecret: { secret: given } });
    expect(changed.configResponse!.data.secret).toBe(given);

    const updated = await sdk.webhooks.v1.updateConfig({ id: config.id, configUser: { endpoint, eventTypes: ['payments.saved_payment'] } });
    expect(updated.statusCode).toBe(200);
    const afterUpdate = await sdk.webhooks.v1.getManyConfigs({ id: config.id });
    expect(afterUpdate.configsResponse!.cursor.data[0]!.eventTypes).toEqual(['payments.saved_payment']);

    const deleted = await sdk.webhooks.v1.deleteConfig({ id: config.id });
    expect(deleted.statusCode).toBe(200);
    expect((await sdk.webhooks.v1.getManyConfigs({ id: config.id })).configsResponse!.cursor.data).toEqual([]);
  });

  it('surfaces our errors as the SDK\'s typed webhooks ErrorResponse (codes within its closed enum)', async () => {
    const err = await sdk.webhooks.v1.insertConfig({ endpoint: 'ftp://x.example.com', eventTypes: ['ledger.committed_transactions'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErrorResponse);
    expect((err as ErrorResponse).errorCode).toBe('VALIDATION');
    expect((err as ErrorResponse).statusCode).toBe(400);

    const missing = await sdk.webhooks.v1.activateConfig({ id: '6f1c1b1e-0000-4000-8000-000000000000' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ErrorResponse);
    expect((missing as ErrorResponse).errorCode).toBe('NOT_FOUND');
    expect((missing as ErrorResponse).statusCode).toBe(404);
  });
});
