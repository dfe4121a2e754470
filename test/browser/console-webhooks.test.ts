/**
 * The console's webhook screens in a real headless Chromium against the local platform (dispatch and deliver
 * running): configurations, a configuration's deliveries, a delivery's attempts, and a replay that makes a new
 * attempt at a loopback receiver.
 */
import { randomBytes } from 'node:crypto';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { launchBrowser, openPage } from '../support/browser.js';
import { startTestPlatform } from '../support/platform.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { openScreen, signIn, texts, waitFor } from './console-page.js';
import { type Api, finishedDeliveries, platformApi, seedWebhook } from './console-seed.js';

describe('console: webhook screens', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let api: Api;
  let configId: string;
  let secret: string;
  let deliveryId: string;

  beforeAll(async () => {
    [platform, browser, receiver] = await Promise.all([
      startTestPlatform(),
      launchBrowser(),
      startWebhookReceiver(),
    ]);
    api = await platformApi(platform.baseUrl);
    configId = await seedWebhook(api, receiver.url, 'orders');
    secret = (await api('GET', `/api/webhooks/configs/${configId}`)).body.data.secret;
    const ledger = `hooks-${randomBytes(3).toString('hex')}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const tx = await api('POST', `/api/ledger/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'users:1', amount: 100n, asset: 'USD/2' }],
    });
    expect(tx.status).toBe(200);
    const [delivery] = await finishedDeliveries(api, configId, 1);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1n });
    deliveryId = delivery.id;
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await platform?.stop();
  });

  it('lists webhook configurations without their secrets', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, '#/webhooks');
    await waitFor(page, 'tr[data-config]');
    expect(
      await page.$$eval('tr[data-config]', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      ),
    ).toEqual([
      [
        expect.any(String),
        receiver.url,
        'ledger.committed_transactions',
        'active',
        expect.any(String),
      ],
    ]);
    expect(await texts(page, 'tr[data-config] td:first-child')).toEqual(['orders']);
    expect(await page.content()).not.toContain(secret);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a configuration's deliveries, then a delivery's attempts", async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, '#/webhooks');
    await waitFor(page, `tr[data-config="${configId}"] a`);
    await page.click(`tr[data-config="${configId}"] a`);
    await waitFor(page, 'tr[data-delivery]');
    expect(
      await page.$$eval('tr[data-delivery]', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      ),
    ).toEqual([
      [deliveryId, 'ledger.committed_transactions', 'succeeded', '1', '200', expect.any(String)],
    ]);

    await page.click(`tr[data-delivery="${deliveryId}"] a`);
    await waitFor(page, 'tr[data-attempt]');
    expect(new URL(page.url()).hash).toBe(`#/webhooks/${configId}/deliveries/${deliveryId}`);
    // attempt, replay generation, at, outcome, status, duration, error / response
    const attempts = await page.$$eval('tr[data-attempt]', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(attempts).toEqual([
      ['1', '0', expect.any(String), 'succeeded', '200', expect.stringMatching(/^\d+ ms$/), ''],
    ]);
    expect(await texts(page, '[data-status]')).toEqual(['succeeded']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('replays a delivery: a new attempt reaches the receiver and appears in the list', async () => {
    const before = receiver.received.length;
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/webhooks/${configId}/deliveries/${deliveryId}`);
    await waitFor(page, 'tr[data-attempt="1"]');
    await page.click('button[data-action=replay]');
    // The page reads the delivery again until its new attempt is recorded.
    await waitFor(page, 'tr[data-attempt="2"]');
    await waitFor(page, '[data-status="succeeded"]');
    const attempts = await page.$$eval('tr[data-attempt]', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(attempts.map((a) => [a[0], a[1], a[3], a[4]])).toEqual([
      ['1', '0', 'succeeded', '200'],
      ['2', '1', 'succeeded', '200'],
    ]);
    // The receiver got it again, under the same delivery id.
    expect(receiver.received.length).toBe(before + 1);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(deliveryId);
    const { body } = await api('GET', `/api/webhooks/deliveries/${deliveryId}`);
    expect(body.data).toMatchObject({
      status: 'succeeded',
      attemptCount: 2n,
      replayGeneration: 1n,
    });
    expect(await texts(page, 'button[data-action=replay]')).toEqual(['Replay']);
    expect(errors).toEqual([]);
    await page.close();
  });
});
