import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { TEST_CLIENT } from '../../lib/auth/domain/static-clients.js';
import { launchBrowser, openPage } from '../support/browser.js';
import { startTestPlatform } from '../support/platform.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';

/**
 * The API reference at `/docs` in a real headless Chromium: it loads from the platform alone (every request
 * is checked, and anything leaving 127.0.0.1 is refused and recorded), shows the operations, and "Test
 * Request" works: sign in with client credentials in the page's Authentication section, open an operation's
 * client, send, and the platform answers 200.
 */

// What the page functions below touch in the browser (the project compiles for Node, without the DOM library).
declare const document: {
  body: { innerText: string };
  querySelectorAll(selector: string): Iterable<{ textContent: string | null }>;
};
declare const window: { location: { hash: string } };

let platform: RunningPlatform;
let browser: Browser;
let page: Page;
let errors: string[];
const outside: string[] = [];
const requests: HTTPRequest[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  browser = await launchBrowser();
  ({ page, errors } = await openPage(browser));
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    requests.push(request);
    if (new URL(request.url()).hostname !== '127.0.0.1') {
      outside.push(`${request.method()} ${request.url()}`);
      void request.abort();
    } else void request.continue();
  });
  await page.goto(`${platform.baseUrl}/docs`, {
    waitUntil: 'networkidle0',
    timeout: WAIT_LIMIT_MS,
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

/** The first button whose text contains `text`, once the page has rendered it. */
async function button(text: string) {
  const handle = await page.waitForFunction(
    (wanted) =>
      [...document.querySelectorAll('button')].find((b) => (b.textContent ?? '').includes(wanted)),
    { timeout: WAIT_LIMIT_MS },
    text,
  );
  return handle.asElement() as NonNullable<ReturnType<typeof handle.asElement>> & {
    click(): Promise<void>;
  };
}

describe('API reference page (/docs)', () => {
  it('loads from the platform alone, with no console error', async () => {
    await page.waitForFunction(
      () => document.body.innerText.includes('Serverless financial platform'),
      {
        timeout: WAIT_LIMIT_MS,
      },
    );
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    const paths = requests.map((r) => new URL(r.url()).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/docs', '/docs/scalar.js', '/openapi.json']));
  });

  it("shows every service's operations, with the SDK's operation ids", async () => {
    const text = await page.evaluate(() => document.body.innerText);
    for (const group of [
      'ledger: transactions',
      'ledger: accounts',
      'ledger: logs',
      'ledger v1',
      'webhooks: configs',
      'webhooks: deliveries',
      'payments',
      'auth: clients',
      'auth: OAuth 2.0',
    ])
      expect(text).toContain(group);
    await page.evaluate(() => {
      window.location.hash = '#tag/ledger-transactions/POST/api/ledger/v2/{ledger}/transactions';
    });
    await page.waitForFunction(
      () =>
        document.body.innerText.includes('Create a transaction') &&
        document.body.innerText.includes('v2CreateTransaction'),
      { timeout: WAIT_LIMIT_MS },
    );
    for (const summary of ['List transactions', 'Get a transaction', 'Revert a transaction'])
      expect(await page.evaluate(() => document.body.innerText)).toContain(summary);
  });

  it('"Test Request" with a client-credentials token answers 200', async () => {
    // Sign in: the Authentication section offers the OAuth 2.0 client credentials flow of the document.
    await page.click('.code-input-lite__editor[data-placeholder="12345"]');
    await page.keyboard.type(TEST_CLIENT.id);
    await page.type('input[placeholder="XYZ123"]', TEST_CLIENT.secret);
    const token = page.waitForResponse((r) => r.url().endsWith('/api/auth/oauth/token'), {
      timeout: WAIT_LIMIT_MS,
    });
    await (await button('Authorize')).click();
    expect((await token).status()).toBe(200);

    await page.evaluate(() => {
      window.location.hash = '#tag/ledger-ledgers/GET/api/ledger/v2';
    });
    await (await button('(get /api/ledger/v2)')).click();
    const answer = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/ledger/v2' && r.request().method() === 'GET',
      { timeout: WAIT_LIMIT_MS },
    );
    await (await button('Send get request to')).click();
    const response = await answer;
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await response.json()).toMatchObject({ cursor: { pageSize: 15, hasMore: false } });
    await page.waitForFunction(() => document.body.innerText.includes('200 OK'), {
      timeout: WAIT_LIMIT_MS,
    });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});
