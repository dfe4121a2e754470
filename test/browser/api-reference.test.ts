import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { TEST_CLIENT } from '../../lib/auth/domain/static-clients.js';
import { launchBrowser, openPage } from '../support/browser.js';
import { startTestPlatform } from '../support/platform.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';

/**
 * The API reference at `/docs` in a real headless Chromium: it loads from the platform alone (every request
 * is checked, and anything leaving 127.0.0.1 is refused and recorded; every refusal of the page's content
 * security policy is recorded too), shows the operations grouped by service, and "Test Request" works with the
 * document's examples as they are: sign in with client credentials in the page's Authentication section, open
 * an operation's client, send, and the platform answers.
 */

// What the page functions below touch in the browser (the project compiles for Node, without the DOM library).
declare const document: {
  body: { innerText: string };
  querySelectorAll(selector: string): Iterable<{ textContent: string | null }>;
};
declare const window: { location: { hash: string }; policyRefusals: string[] };
declare const HTMLElement: { prototype: { offsetParent: unknown } };
/** A content security policy refusal (`securitypolicyviolation`), as far as the test reads it. */
interface EventSource {
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (e: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
}

/**
 * What the policy refuses on every load, neither one a request: the `@font-face` rules of Scalar's theme name its
 * CDN (the fonts are never used: the page sets the machine's), and a library in Scalar probes `Function`.
 */
const EXPECTED_REFUSAL = /^(font-src https:\/\/fonts\.scalar\.com\/[\w-]+\.woff2|script-src eval)$/;
const EXPECTED_ERROR =
  /^Loading the font 'https:\/\/fonts\.scalar\.com\/[\w-]+\.woff2' violates the following Content Security Policy directive/;

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
  await page.evaluateOnNewDocument(() => {
    window.policyRefusals = [];
    (globalThis as unknown as { document: EventSource }).document.addEventListener(
      'securitypolicyviolation',
      (e) => window.policyRefusals.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
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

/** The policy's refusals on this page other than the two expected on every load. */
async function unexpectedRefusals(): Promise<string[]> {
  const refusals = await page.evaluate(() => window.policyRefusals);
  return refusals.filter((r) => !EXPECTED_REFUSAL.test(r));
}

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

/** Types `text` into the field until the page shows exactly it (at most three tries, each from an empty field). */
async function typeUntilShown(selector: string, text: string) {
  const shown = () =>
    page.$eval(selector, (e) => {
      const field = e as unknown as { value?: string; textContent: string | null };
      return field.value ?? field.textContent ?? '';
    });
  for (let attempt = 0; attempt < 3 && (await shown()) !== text; attempt++) {
    // A field re-rendered while the page settles can be in the DOM but not clickable yet (a loaded CI machine):
    // wait until it is visible, and focus it when a click cannot land.
    await page.waitForSelector(selector, { visible: true, timeout: WAIT_LIMIT_MS });
    await page.click(selector, { count: 3 }).catch(() => page.focus(selector));
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text);
  }
  expect(await shown()).toBe(text);
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
    expect(errors.filter((e) => !EXPECTED_ERROR.test(e))).toEqual([]);
    expect(await unexpectedRefusals()).toEqual([]);
    const paths = requests.map((r) => new URL(r.url()).pathname);
    expect(paths).toEqual(
      expect.arrayContaining(['/docs', '/docs/scalar.js', '/docs/start.js', '/openapi.json']),
    );
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

  it('groups the tags by service, and shows a body that is one of two shapes as such', async () => {
    const sidebar = await page.evaluate(() =>
      [...document.querySelectorAll('nav, aside')].map((n) => n.textContent ?? '').join('\n'),
    );
    for (const group of ['Ledger', 'Webhooks', 'Payments', 'Auth', 'Platform'])
      expect(sidebar).toContain(group);
    // The create-transaction body (the page is on it): postings or a Numscript script (`oneOf`), the first shown.
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toMatch(
      /Body\s+required\s+application\/json\s+One of\s+·\s+Postings\s+postings\s/,
    );
  });

  it('"Test Request" with a client-credentials token answers 200', async () => {
    // Sign in: the Authentication section offers the OAuth 2.0 client credentials flow of the document.
    // Keystrokes can be lost while the editor is still mounting on a loaded machine: the fields are read back
    // before Authorize, so the flow is tested with the credentials, not with whatever was typed in time.
    await typeUntilShown('.code-input-lite__editor[data-placeholder="12345"]', TEST_CLIENT.id);
    await typeUntilShown('input[placeholder="XYZ123"]', TEST_CLIENT.secret);
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
    const listed = await response.json();
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(listed).toMatchObject({ cursor: { pageSize: 15, hasMore: false } });
    await page.waitForFunction(() => document.body.innerText.includes('200 OK'), {
      timeout: WAIT_LIMIT_MS,
    });
    expect(outside).toEqual([]);
    expect(errors.filter((e) => !EXPECTED_ERROR.test(e))).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('"Test Request" sends the examples unchanged, and the platform takes them', async () => {
    const sent = async (method: string, path: string) => {
      await page.evaluate(
        (p) => {
          window.location.hash = p;
        },
        `#tag/${method === 'post' && path.endsWith('transactions') ? 'ledger-transactions' : 'ledger-ledgers'}/${method.toUpperCase()}${path}`,
      );
      await (await button(`(${method} ${path})`)).click();
      const answer = page.waitForResponse((r) => r.request().method() === method.toUpperCase(), {
        timeout: WAIT_LIMIT_MS,
      });
      await (await button(`Send ${method} request to`)).click();
      const response = await answer;
      // The body is read at once: Chromium may drop a response's data once the client's modal closes.
      const text = response.status() === 204 ? '' : await response.text();
      await page.keyboard.press('Escape');
      return { response, text };
    };
    // The ledger `main` (the path's example), then a transaction with the example's postings.
    const { response: ledger } = await sent('post', '/api/ledger/v2/{ledger}');
    expect(new URL(ledger.url()).pathname).toBe('/api/ledger/v2/main');
    expect(JSON.parse(ledger.request().postData() ?? '')).toEqual({
      metadata: { team: 'payments' },
    });
    expect(ledger.status()).toBe(204);
    const { response: transaction, text } = await sent(
      'post',
      '/api/ledger/v2/{ledger}/transactions',
    );
    expect(transaction.status()).toBe(200);
    const body = JSON.parse(text);
    expect(body.data.postings).toEqual([
      { source: 'world', destination: 'users:001', amount: 100, asset: 'USD/2' },
    ]);
    expect(body.data.metadata).toEqual({ order: 'order-42' });
    expect(outside).toEqual([]);
  });

  it("hides Scalar's hosted-service buttons, and the page could not reach that service anyway", async () => {
    const visible = await page.evaluate(() =>
      [...document.querySelectorAll('button')]
        .filter((b) => /Ask AI|MCP|VS Code|Cursor/.test(b.textContent ?? ''))
        .filter((b) => (b as unknown as typeof HTMLElement.prototype).offsetParent !== null)
        .map((b) => b.textContent),
    );
    expect(visible).toEqual([]);
    // Click the hidden "Ask AI" as a script could: Scalar calls its service, the policy refuses the call. Last:
    // the agent's panel stays open.
    await page.evaluate(() => {
      const ask = [...document.querySelectorAll('button')].find(
        (b) => (b.textContent ?? '').trim() === 'Ask AI',
      ) as unknown as { click(): void };
      ask.click();
    });
    await page.waitForFunction(
      () => window.policyRefusals.some((r) => r.startsWith('connect-src https://api.scalar.com/')),
      { timeout: WAIT_LIMIT_MS },
    );
    expect(outside).toEqual([]);
    expect(
      (await unexpectedRefusals()).every((r) =>
        r.startsWith('connect-src https://api.scalar.com/'),
      ),
    ).toBe(true);
  });
});
