/**
 * The console's ledger screens in a real headless Chromium against the local platform: ledgers, accounts with
 * exact balances, transactions with postings and metadata (paged), and the log's hash chain verified in the
 * browser — intact, and broken by an edit made directly in DynamoDB; the ledger's balance monitors and holds.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformConfigFromVariables } from '../../lib/config/env.js';
import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { type LogEntry, logHash } from '../../lib/ledger/domain/logs.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { launchBrowser, openPage } from '../support/browser.js';
import { startTestPlatform } from '../support/platform.js';
import { metadataIn, openScreen, signIn, texts, waitFor } from './console-page.js';
import {
  BEYOND_2_53,
  HUGE,
  platformApi,
  seedBusyLedger,
  seedHoldsLedger,
  seedShopLedger,
} from './console-seed.js';

describe('console: ledger screens', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  const suffix = randomBytes(3).toString('hex');
  const shop = `shop-${suffix}`;
  const busy = `busy-${suffix}`;
  const tampered = `tampered-${suffix}`;
  const BUSY_TRANSACTIONS = 120;

  beforeAll(async () => {
    [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
    const api = await platformApi(platform.baseUrl);
    await seedShopLedger(api, shop);
    await seedBusyLedger(api, busy, BUSY_TRANSACTIONS);
    // One request per transaction: each log entry is an item of its own, which the test edits.
    await seedBusyLedger(api, tampered, 3, 1);
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('lists the ledgers, and a ledger name leads to its accounts', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await waitFor(page, 'tr[data-ledger]');
    expect(await texts(page, 'tr[data-ledger] td:first-child')).toEqual([shop, busy, tampered]);
    expect(await metadataIn(page, `tr[data-ledger="${shop}"] dl.metadata`)).toEqual({
      owner: 'shop',
    });
    expect(await texts(page, `tr[data-ledger="${shop}"] td:nth-child(3)`)).toEqual(['SYNC']);

    await page.click(`tr[data-ledger="${shop}"] a`);
    await waitFor(page, 'tr[data-account]');
    expect(new URL(page.url()).hash).toBe(`#/ledgers/${shop}/accounts`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows every account with its exact volumes per asset, beyond 2^53 and to 30 digits', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/accounts`);
    await waitFor(page, 'tr[data-account]');
    const rows = await page.$$eval('tr[data-account]', (trs) =>
      trs.map((tr) => [
        tr.getAttribute('data-account'),
        tr.getAttribute('data-asset'),
        ...[...tr.querySelectorAll('td.number .digits')].map((d) => d.textContent),
      ]),
    );
    // address, asset, balance, input, output (an account's assets in the order the API gave them)
    const byAddressAndAsset = (a: unknown[], b: unknown[]) =>
      `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`);
    expect(rows.sort(byAddressAndAsset)).toEqual([
      ['merchants:acme', 'USD/2', '1999', '1999', '0'],
      ['platform:fees', 'USD/2', '1', '1', '0'],
      ['treasury', 'BTC/8', String(HUGE), String(HUGE), '0'],
      // BEYOND_2_53 = 9007199254740993: through a JS number it would show 9007199254740992.
      ['users:alice', 'USD/2', '9007199254738993', String(BEYOND_2_53), '2000'],
      ['users:bob', 'EUR/2', '0', '25000', '25000'],
      ['world', 'BTC/8', `-${HUGE}`, '0', String(HUGE)],
      ['world', 'EUR/2', '0', '25000', '25000'],
      ['world', 'USD/2', `-${BEYOND_2_53}`, '0', String(BEYOND_2_53)],
    ]);
    expect(await texts(page, 'td.address')).toEqual([
      'merchants:acme',
      'platform:fees',
      'treasury',
      'users:alice',
      'users:bob',
      'world',
    ]);
    expect(await metadataIn(page, 'tr[data-account="users:alice"] dl.metadata')).toEqual({
      tier: 'gold',
    });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows transactions newest first with their postings, metadata, references and reverts', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/transactions`);
    await waitFor(page, 'tr[data-transaction]');
    expect(await texts(page, 'tr[data-transaction] td:first-child')).toEqual([
      '4',
      '3',
      '2reverted',
      '1',
    ]);
    expect(await texts(page, 'tr[data-transaction="1"] li.posting')).toEqual([
      // The decimal of the asset's precision, then the exact minor units.
      `world → users:alice 90071992547409.93 USD ${BEYOND_2_53} USD/2`,
      `world → treasury 1234567890123456789012.34567890 BTC ${HUGE} BTC/8`,
    ]);
    expect(await texts(page, 'tr[data-transaction="3"] li.posting')).toEqual([
      'users:alice → merchants:acme 19.99 USD 1999 USD/2',
      'users:alice → platform:fees 0.01 USD 1 USD/2',
    ]);
    expect(await texts(page, 'tr[data-transaction="4"] li.posting')).toEqual([
      'users:bob → world 250.00 EUR 25000 EUR/2',
    ]);
    expect(await metadataIn(page, 'tr[data-transaction="1"] dl.metadata')).toEqual({
      kind: 'funding',
      batch: '2026-11',
    });
    expect(await metadataIn(page, 'tr[data-transaction="3"] dl.metadata')).toEqual({
      order: 'A-1001',
      customer: 'alice',
    });
    expect(await metadataIn(page, 'tr[data-transaction="4"] dl.metadata')).toEqual({
      'com.formance.spec/state/reverts': '2',
    });
    expect(await texts(page, 'tr[data-transaction] td:nth-child(4)')).toEqual([
      '—',
      'order-A-1001',
      '—',
      'funding-1',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("pages through transactions and accounts with the API's cursors, forward and back", async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${busy}/transactions`);
    await waitFor(page, 'tr[data-transaction]');
    const ids = () => texts(page, 'tr[data-transaction] td:first-child');
    const range = (from: number) => Array.from({ length: 15 }, (_, i) => String(from - i));
    expect(await ids()).toEqual(range(120));

    await page.click('.pager a:last-child');
    await waitFor(page, 'tbody tr:first-child[data-transaction="105"]');
    expect(await ids()).toEqual(range(105));
    expect(new URL(page.url()).hash).toMatch(
      new RegExp(`^#/ledgers/${busy}/transactions\\?cursor=`),
    );

    await page.click('.pager a:first-child');
    await waitFor(page, 'tbody tr:first-child[data-transaction="120"]');
    expect(await ids()).toEqual(range(120));

    // Accounts too: the next page's cursor carries `expand=volumes`, so its balances still show.
    await openScreen(page, platform.baseUrl, `#/ledgers/${busy}/accounts`);
    await waitFor(page, 'tr[data-account="users:001"]');
    await page.click('.pager a:last-child');
    await waitFor(page, 'tbody tr:first-child[data-account="users:016"]');
    expect(await texts(page, 'tr[data-account="users:016"] td.balance')).toEqual([
      '16.00 USD 1600',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the log and verifies its whole hash chain in the browser, across pages', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/logs`);
    await waitFor(page, '[data-chain="ok"]');
    expect(await texts(page, '[data-chain]')).toEqual([
      '✓ Chain verified: 5 entries, every hash recomputed in this browser',
    ]);
    expect(await texts(page, 'tr[data-log] td:nth-child(2)')).toEqual([
      'SET_METADATA',
      'REVERTED_TRANSACTION',
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
    ]);
    expect(await texts(page, 'tr[data-log] td:nth-child(3)')).toEqual([
      'metadata on account users:alice: tier',
      'transaction 2 reverted by 4',
      'transaction 3 (2 postings)',
      'transaction 2 (1 posting)',
      'transaction 1 (2 postings)',
    ]);

    // 120 entries: the walk reads two pages of 100.
    await openScreen(page, platform.baseUrl, `#/ledgers/${busy}/logs`);
    await waitFor(page, '[data-chain="ok"]::-p-text(120 entries)');
    expect(await texts(page, '[data-chain]')).toEqual([
      `✓ Chain verified: ${BUSY_TRANSACTIONS} entries, every hash recomputed in this browser`,
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('names the first broken link when a log entry was edited in the table', async () => {
    // Change the metadata inside log 2's stored body, as someone with table access might.
    const { doc } = createRuntime(platformConfigFromVariables(platform.variables));
    const table = platform.variables.LEDGER_TABLE!;
    const key = (id: number) => ({
      pk: `E#default#L#${tampered}#LOG`,
      sk: String(id).padStart(15, '0'),
    });
    const read = async (id: number) => {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: key(id) }));
      return parseJson(String(Item!.body)) as LogEntry & {
        data: { transaction: { metadata: Record<string, string> } };
      };
    };
    const entry = await read(2);
    entry.data.transaction.metadata.n = 'edited';
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: key(2),
        UpdateExpression: 'SET body = :b',
        ExpressionAttributeValues: { ':b': stringifyJson(entry) },
      }),
    );
    const { hash: stored, ...edited } = entry;
    const recomputed = logHash((await read(1)).hash, { ...edited, id: Number(edited.id) });
    expect(recomputed).not.toBe(stored);

    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${tampered}/logs`);
    await waitFor(page, '[data-chain="broken"]');
    expect(await texts(page, '[data-chain]')).toEqual([
      `✗ Chain broken at log 2: hash mismatch: stored ${stored}, recomputed ${recomputed}`,
    ]);
    expect(await texts(page, 'tr.broken td:first-child')).toEqual(['2']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a ledger's balance monitors: the condition in words, its exact amount, metadata", async () => {
    const api = await platformApi(platform.baseUrl);
    const create = (body: unknown) => api('POST', `/api/ledger/v2/${shop}/monitors`, body);
    const low = await create({
      account: 'users:*',
      asset: 'USD/2',
      condition: { type: 'below', amount: BEYOND_2_53 },
      metadata: { team: 'risk' },
    });
    expect(low.status).toBe(201);
    const neg = await create({
      account: 'treasury',
      asset: 'BTC/8',
      condition: { type: 'negative' },
    });
    expect(neg.status).toBe(201);

    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/monitors`);
    await waitFor(page, 'tr[data-monitor]');
    expect(await texts(page, 'tr[data-monitor] td.address')).toEqual(['users:*', 'treasury']);
    expect(await texts(page, 'tr[data-monitor] td.condition')).toEqual([
      // BEYOND_2_53 exact: through a JS number it would show ...992.
      `falls below 90071992547409.93 USD ${BEYOND_2_53} USD/2`,
      'becomes negative',
    ]);
    expect(await metadataIn(page, `tr[data-monitor="${low.body.data.id}"] dl.metadata`)).toEqual({
      team: 'risk',
    });
    expect(await texts(page, 'nav.tabs a[aria-current="page"]')).toEqual(['Monitors']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a ledger's holds: state, each posting's amount, posted and remaining, expiry, the posts' transactions", async () => {
    const api = await platformApi(platform.baseUrl);
    const cards = `cards-${suffix}`;
    const [partial, voided, expired, open] = await seedHoldsLedger(api, cards);
    const post = (await api('GET', `/api/ledger/v2/${cards}/pending/${partial}`)).body.data
      .transactions[0] as bigint;

    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${cards}/pending`);
    await waitFor(page, 'tr[data-hold]');
    // Newest first.
    const ids = [open, expired, voided, partial].map(String);
    expect(await page.$$eval('tr[data-hold]', (trs) => trs.map((tr) => tr.dataset.hold))).toEqual(
      ids,
    );
    expect(await texts(page, 'tr[data-hold] td.state')).toEqual([
      'PENDING',
      'EXPIRED',
      'VOIDED',
      // Posted in part: still open for the rest.
      'PENDING',
    ]);
    expect(await texts(page, 'tr[data-hold] li.posting')).toEqual([
      `cards:1 → merchants:cafe 90071992547409.93 USD ${BEYOND_2_53} USD/2 posted 0.00 USD 0 remaining 90071992547409.93 USD ${BEYOND_2_53}`,
      'cards:1 → merchants:cafe 3.00 USD 300 USD/2 posted 0.00 USD 0 remaining 0.00 USD 0',
      'cards:1 → merchants:cafe 7.00 USD 700 USD/2 posted 0.00 USD 0 remaining 0.00 USD 0',
      'cards:1 → merchants:cafe 25.00 USD 2500 USD/2 posted 10.00 USD 1000 remaining 15.00 USD 1500',
    ]);
    const expiries = await texts(page, 'tr[data-hold] td.expires');
    expect(expiries.slice(2)).toEqual(['never', 'never']);
    expect(expiries.slice(0, 2).every((e) => / UTC$/.test(e))).toBe(true);
    expect(await texts(page, 'tr[data-hold] td.transactions')).toEqual([
      '—',
      '—',
      '—',
      String(post),
    ]);
    expect(await metadataIn(page, `tr[data-hold="${partial}"] dl.metadata`)).toEqual({
      order: 'A-1',
    });
    expect(await texts(page, 'nav.tabs a[aria-current="page"]')).toEqual(['Holds']);
    await page.click(`tr[data-hold="${partial}"] td.transactions a`);
    await waitFor(page, '[data-screen=transaction] li[data-posting]');
    expect(new URL(page.url()).hash).toBe(`#/ledgers/${cards}/transactions/${post}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows a ledger's pipelines: state, what each exported and how far behind the log it is", async () => {
    const api = await platformApi(platform.baseUrl);
    // A receiver that refuses every connection: nothing is exported, so the lag is the whole log.
    const exporter = await api('POST', '/api/ledger/v2/_/exporters', {
      driver: 'http',
      config: { url: 'http://127.0.0.1:9/refused' },
    });
    expect(exporter.status).toBe(201);
    const pipeline = await api('POST', `/api/ledger/v2/${shop}/pipelines`, {
      exporterID: exporter.body.data.id,
    });
    expect(pipeline.status).toBe(201);
    const id = pipeline.body.data.id;
    expect((await api('POST', `/api/ledger/v2/${shop}/pipelines/${id}/stop`)).status).toBe(202);
    const logs = await api('GET', `/api/ledger/v2/${shop}/logs?pageSize=1`);
    const newest = Number(logs.body.cursor.data[0].id);
    expect(newest).toBeGreaterThan(0);

    const { page, errors } = await openPage(browser);
    await signIn(page, platform.baseUrl);
    await openScreen(page, platform.baseUrl, `#/ledgers/${shop}/pipelines`);
    await waitFor(page, `tr[data-pipeline="${id}"]`);
    const row = `tr[data-pipeline="${id}"]`;
    expect(await texts(page, `${row} td.state`)).toEqual(['stopped']);
    expect(await texts(page, `${row} td.exported`)).toEqual(['—']);
    expect(await texts(page, `${row} td.lag`)).toEqual([String(newest)]);
    expect(await texts(page, 'nav.tabs a[aria-current="page"]')).toEqual(['Pipelines']);
    expect(errors).toEqual([]);
    await page.close();
  });
});
