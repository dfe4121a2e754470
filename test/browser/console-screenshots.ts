/**
 * `npm run console:screenshots`: starts a fresh local platform (its own in-memory DynamoDB Local), seeds it
 * through the API as the browser tests do, and photographs every console screen into docs/console/*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Page } from 'puppeteer-core';
import { startPlatform } from '../../infra/local/platform.js';
import { platformConfigFromVariables } from '../../lib/config/env.js';
import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { launchBrowser } from '../support/browser.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { openScreen, signIn, waitFor } from './console-page.js';
import {
  finishedDeliveries,
  platformApi,
  seedBusyLedger,
  seedShopLedger,
  seedWebhook,
} from './console-seed.js';

const outDir = join(import.meta.dirname, '..', '..', 'docs', 'console');
mkdirSync(outDir, { recursive: true });

const platform = await startPlatform({ port: 0, variables: { LOG_LEVEL: 'silent' } });
// The first delivery it receives is refused once (503), so one delivery shows a retry among its attempts.
const receiver = await startWebhookReceiver([503]);
const browser = await launchBrowser();
try {
  const api = await platformApi(platform.baseUrl);
  const configId = await seedWebhook(api, receiver.url, 'orders');
  await seedShopLedger(api, 'shop');
  await seedBusyLedger(api, 'payouts', 40);
  await seedBusyLedger(api, 'tampered', 3, 1);
  await tamperWithLog(platform.variables, 'tampered', 2);
  const deliveries = await finishedDeliveries(api, configId, 3 + 40 + 3, WAIT_LIMIT_MS);
  const retried = deliveries.find((d) => d.attemptCount > 1n) ?? deliveries[0];

  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 760 });
  const shot = async (name: string) => {
    await page.screenshot({ path: join(outDir, `${name}.png`) as `${string}.png` });
    process.stdout.write(`docs/console/${name}.png\n`);
  };

  await page.goto(`${platform.baseUrl}/console`);
  await waitFor(page, 'input[name=clientId]');
  await page.type('input[name=clientId]', 'local-dev');
  await shot('sign-in');

  await signIn(page, platform.baseUrl);
  await show(page, '#/ledgers', 'tr[data-ledger]');
  await shot('ledgers');
  await show(page, '#/ledgers/shop/accounts', 'tr[data-account]');
  await shot('accounts');
  await show(page, '#/ledgers/shop/transactions', 'tr[data-transaction]');
  await shot('transactions');
  await show(page, '#/ledgers/shop/logs', '[data-chain="ok"]');
  await shot('logs');
  await show(page, '#/ledgers/tampered/logs', '[data-chain="broken"]');
  await shot('logs-broken');
  await show(page, '#/webhooks', 'tr[data-config]');
  await shot('webhooks');
  await show(page, `#/webhooks/${configId}/deliveries`, 'tr[data-delivery]');
  await shot('deliveries');
  await show(page, `#/webhooks/${configId}/deliveries/${retried.id}`, 'tr[data-attempt]');
  await page.click('button[data-action=replay]');
  await waitFor(page, `tr[data-attempt="${retried.attemptCount + 1n}"]`);
  await waitFor(page, 'button[data-action=replay]:not([disabled])');
  await shot('delivery');
  await show(page, '#/ledgers/shop/transactions/3', '[data-screen=transaction] dl[data-log-entry]');
  await shot('transaction');
  await show(page, '#/ledgers/shop/accounts/users:alice', '[data-screen=account] tr[data-asset]');
  await shot('account');
  await show(page, '#/ledgers/shop/transactions?account=users%3Aalice', 'tr[data-transaction]');
  await shot('transactions-filtered');

  // The same screens on a phone (390 px wide).
  await page.setViewport({ width: 390, height: 844 });
  await show(page, '#/ledgers/shop/transactions/3', '[data-screen=transaction] dl[data-log-entry]');
  await shot('phone-transaction');
  await show(page, '#/ledgers/shop/accounts', 'tr[data-account]');
  await shot('phone-accounts');
  await show(page, `#/webhooks/${configId}/deliveries/${retried.id}`, 'tr[data-attempt]');
  await shot('phone-delivery');

  async function show(p: Page, route: string, ready: string) {
    await openScreen(p, platform.baseUrl, route);
    await waitFor(p, ready);
  }
} finally {
  await browser.close();
  await receiver.close();
  await platform.stop();
}

/** Edits one stored log entry's metadata, as someone with table access might. */
async function tamperWithLog(env: NodeJS.ProcessEnv, ledger: string, id: number) {
  const { doc } = createRuntime(platformConfigFromVariables(env));
  const key = { pk: `E#default#L#${ledger}#LOG`, sk: String(id).padStart(15, '0') };
  const { Item } = await doc.send(new GetCommand({ TableName: env.LEDGER_TABLE, Key: key }));
  const entry = parseJson(String(Item!.body)) as {
    data: { transaction: { metadata: Record<string, string> } };
  };
  entry.data.transaction.metadata.n = 'edited';
  await doc.send(
    new UpdateCommand({
      TableName: env.LEDGER_TABLE,
      Key: key,
      UpdateExpression: 'SET body = :b',
      ExpressionAttributeValues: { ':b': stringifyJson(entry) },
    }),
  );
}
