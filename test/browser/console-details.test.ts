/**
 * The console on a phone (390 px wide) in a real headless Chromium against the local platform: a transaction's and
 * an account's detail pages (postings, volumes before and after, the log entry, decimal amounts beside the exact minor units),
 * the transactions filter, a ledger's holds, and a pending delivery's reason and "Retry now" — each page without
 * sideways scroll of the page itself.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { launchBrowser, openPage } from '../support/browser.js';
import { startTestPlatform } from '../support/platform.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';
import { metadataIn, openScreen, signIn, texts, waitFor } from './console-page.js';
import { type Api, platformApi, seedHoldsLedger, seedShopLedger } from './console-seed.js';

const PHONE = { width: 390, height: 844 };

/** The page fits the phone: nothing makes the document itself wider than the screen. */
const pageWidth = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth') as Promise<number>;
/** Waits until the page shows more than `n` rows matching `selector`. */
const rowsBeyond = (page: Page, selector: string, n: number) =>
  page.waitForFunction(`document.querySelectorAll(${JSON.stringify(selector)}).length > ${n}`, {
    timeout: WAIT_LIMIT_MS,
  });

describe('console: detail pages, filters and retry, at 390 px', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let api: Api;
  const shop = `shop-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
    api = await platformApi(platform.baseUrl);
    await seedShopLedger(api, shop);
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  async function phonePage() {
    const opened = await openPage(browser);
    await opened.page.setViewport(PHONE);
    await signIn(opened.page, platform.baseUrl);
    return opened;
  }

  it("a transaction's page: postings with decimal amounts, metadata, every account's balance before and after", async () => {
    const { page, errors } = await phonePage();
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/transactions`);
    // Transaction 3 of the shop: alice pays the merchant and the fee.
    await waitFor(page, 'tr[data-transaction="3"] a');
    await page.click('tr[data-transaction="3"] a');
    await waitFor(page, '[data-screen=transaction] li[data-posting]');
    expect(new URL(page.url()).hash).toBe(`#/ledgers/${shop}/transactions/3`);
    expect(await texts(page, '[data-fact=id]')).toEqual(['3']);
    expect(await texts(page, 'li[data-posting]')).toEqual([
      'users:alice → merchants:acme 19.99 USD 1999 USD/2',
      'users:alice → platform:fees 0.01 USD 1 USD/2',
    ]);
    expect(await metadataIn(page, '[data-screen=transaction] dl.metadata')).toEqual({
      order: 'A-1001',
      customer: 'alice',
    });
    const volumes = await page.$$eval('tr[data-volume]', (trs) =>
      trs.map((tr) => [
        tr.getAttribute('data-volume'),
        ...[...tr.querySelectorAll('td.number')].map((td) => td.textContent),
      ]),
    );
    // An account new to the asset had nothing before; sorted, as the answer orders accounts its own way.
    expect(volumes.sort()).toEqual([
      ['merchants:acme USD/2', '0.00 USD 0', '19.99 USD 1999'],
      ['platform:fees USD/2', '0.00 USD 0', '0.01 USD 1'],
      [
        'users:alice USD/2',
        '90071992547409.93 USD 9007199254740993',
        '90071992547389.93 USD 9007199254738993',
      ],
    ]);
    // The entry that created it: the shop's third (two transactions before it, nothing else).
    await waitFor(page, '[data-screen=transaction] dl[data-log-entry]');
    expect(
      await page.$eval('dl[data-log-entry]', (dl) => [
        dl.getAttribute('data-log-entry'),
        ...[...dl.querySelectorAll('dd')].slice(0, 1).map((dd) => dd.textContent),
      ]),
    ).toEqual(['3', '#3 NEW_TRANSACTION']);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("an account's page leads to its transactions through the filter, which also takes a reference", async () => {
    const { page, errors } = await phonePage();
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/accounts`);
    await waitFor(page, 'tr[data-account="users:alice"] a');
    await page.click('tr[data-account="users:alice"] a');
    await waitFor(page, '[data-screen=account] tr[data-asset]');
    expect(await texts(page, '[data-fact=address]')).toEqual(['users:alice']);
    expect(await texts(page, '[data-screen=account] tr[data-asset="USD/2"] td.number')).toEqual([
      '90071992547389.93 USD 9007199254738993',
      '90071992547409.93 USD 9007199254740993',
      '20.00 USD 2000',
    ]);
    expect(await metadataIn(page, '[data-screen=account] dl.metadata')).toEqual({ tier: 'gold' });
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);

    await page.click('a[data-action=account-transactions]');
    await waitFor(page, 'form[data-filter=transactions]');
    await waitFor(page, 'tr[data-transaction]');
    expect(new URL(page.url()).hash).toBe(`#/ledgers/${shop}/transactions?account=users%3Aalice`);
    // Newest first: the order (3) and the funding (1); bob's top-up and its revert do not move alice.
    expect(
      await page.$$eval('tr[data-transaction]', (trs) =>
        trs.map((tr) => tr.getAttribute('data-transaction')),
      ),
    ).toEqual(['3', '1']);

    await page.$eval('input[name=account]', (i) => {
      (i as unknown as { value: string }).value = '';
    });
    await page.type('input[name=reference]', 'order-A-1001');
    await page.click('form[data-filter=transactions] button[type=submit]');
    await page.waitForFunction("document.querySelectorAll('tr[data-transaction]').length === 1", {
      timeout: WAIT_LIMIT_MS,
    });
    expect(await texts(page, 'tr[data-transaction] td:first-child a')).toEqual(['3']);
    expect(new URL(page.url()).hash).toBe(`#/ledgers/${shop}/transactions?reference=order-A-1001`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a pending delivery says why, and Retry now sends its next attempt at once', async () => {
    // A closed loopback port: every attempt fails, so the delivery stays pending between retries.
    const created = await api('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/hooks',
      eventTypes: ['ledger.saved_metadata'],
      name: 'down',
    });
    const configId = created.body.data.id as string;
    await api('POST', `/api/ledger/v2/${shop}/accounts/users:bob/metadata`, { vip: 'yes' });
    const deadline = Date.now() + WAIT_LIMIT_MS;
    let delivery: { id: string; attemptCount: bigint } | undefined;
    while (Date.now() < deadline && !delivery) {
      const { body } = await api('GET', `/api/webhooks/deliveries?configId=${configId}`);
      delivery = body.cursor.data.find((d: { attemptCount: bigint }) => d.attemptCount >= 1n);
      if (!delivery) await new Promise((r) => setTimeout(r, 250));
    }
    expect(delivery).toBeDefined();

    const { page, errors } = await phonePage();
    await openScreen(page, platform.baseUrl, `#/webhooks/${configId}/deliveries?status=pending`);
    await waitFor(page, `tr[data-delivery="${delivery!.id}"]`);
    await openScreen(page, platform.baseUrl, `#/webhooks/${configId}/deliveries/${delivery!.id}`);
    await waitFor(page, 'button[data-kind=retry-now]');
    const reason = (await texts(page, '[data-reason]'))[0]!;
    expect(reason).toMatch(
      /^Pending: attempt \d+ failed and the next is scheduled for .+\. Retry now sends it at once; Replay is for a finished delivery\.$/,
    );
    expect(await texts(page, 'pre[data-payload]')).toHaveLength(1);
    expect(
      await page.$eval('pre[data-payload]', (p) => (p.textContent ?? '').split('\n')[1]),
    ).toMatch(/^ {2}"id": "[0-9a-f]{32}",$/);
    const before = await page.$$eval('tr[data-attempt]', (trs) => trs.length);
    await page.click('button[data-kind=retry-now]');
    await rowsBeyond(page, 'tr[data-attempt]', before);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a ledger's holds: state, amounts held, posted and remaining, at the phone's width", async () => {
    const cards = `cards-${randomBytes(3).toString('hex')}`;
    const [partial, , expired] = await seedHoldsLedger(api, cards);
    const { page, errors } = await phonePage();
    await openScreen(page, platform.baseUrl, `#/ledgers/${cards}/pending`);
    await waitFor(page, 'tr[data-hold]');
    expect(await texts(page, `tr[data-hold="${expired}"] td.state`)).toEqual(['EXPIRED']);
    expect(await texts(page, `tr[data-hold="${partial}"] li.posting`)).toEqual([
      'cards:1 → merchants:cafe 25.00 USD 2500 USD/2 posted 10.00 USD 1000 remaining 15.00 USD 1500',
    ]);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(errors).toEqual([]);
    await page.close();
  });
});
