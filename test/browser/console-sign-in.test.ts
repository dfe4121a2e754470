/**
 * Signing in to the console in a real headless Chromium: client credentials exchanged at the token endpoint,
 * or a pasted bearer token; the token kept in the tab's sessionStorage and never in a URL; refused and expired
 * tokens sending the user back to the sign-in form.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { launchBrowser, openPage } from '../support/browser.js';
import { startTestPlatform, testClientToken } from '../support/platform.js';
import { signIn, texts, waitFor } from './console-page.js';
import { platformApi } from './console-seed.js';

/** Puts text in a field at once, as a paste does (typing a 900-character token key by key takes seconds). */
const paste = (page: Page, selector: string, text: string) =>
  page.$eval(
    selector,
    (field, value) => {
      (field as unknown as { value: string }).value = value;
    },
    text,
  );
const STORED_SESSION = 'sessionStorage.getItem("platform-console.session")';
/** What Chromium logs for any answer of 401, which a refused sign-in is. */
const REFUSED_401 =
  'Failed to load resource: the server responded with a status of 401 (Unauthorized)';

describe('console: sign-in', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  const ledger = `signin-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
    const api = await platformApi(platform.baseUrl);
    expect((await api('POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('signs in with client credentials: the token is kept in the tab, never in a URL, and sign-out forgets it', async () => {
    const { page, errors } = await openPage(browser);
    const urls: string[] = [];
    const tokenRequests: Array<{ method: string; body: string | undefined }> = [];
    page.on('request', (request) => {
      urls.push(request.url());
      if (request.url().endsWith('/api/auth/oauth/token'))
        tokenRequests.push({ method: request.method(), body: request.postData() });
    });
    await signIn(page, platform.baseUrl);
    await waitFor(page, `tr[data-ledger="${ledger}"]`);
    expect((await texts(page, 'header .who'))[0]).toMatch(/^local-dev · until /);

    // One POST to the token endpoint, same origin, the credentials in its form body.
    expect(tokenRequests).toEqual([
      {
        method: 'POST',
        body: 'grant_type=client_credentials&client_id=local-dev&client_secret=local-dev-secret',
      },
    ]);
    const session = JSON.parse((await page.evaluate(STORED_SESSION)) as string);
    expect(session.subject).toBe('local-dev');
    expect(session.token.split('.')).toHaveLength(3);
    expect(session.scopes).toContain('ledger:read');
    expect(JSON.stringify(session)).not.toContain('local-dev-secret');
    for (const url of [...urls, page.url()]) {
      expect(url).not.toContain(session.token);
      expect(url).not.toContain('local-dev-secret');
    }

    // A reload of the tab keeps the session.
    await page.reload();
    await waitFor(page, `tr[data-ledger="${ledger}"]`);

    await page.click('header button.link');
    await waitFor(page, 'input[name=clientId]');
    expect(await page.evaluate(STORED_SESSION)).toBeNull();
    expect(errors).toEqual([]);

    // Another tab never had the session: sessionStorage belongs to the tab that signed in.
    const other = await openPage(browser);
    await other.page.goto(`${platform.baseUrl}/console`);
    await waitFor(other.page, 'input[name=clientId]');
    expect(other.errors).toEqual([]);
    await Promise.all([page.close(), other.page.close()]);
  });

  it('says so when the client or the secret is wrong, and stays on the form', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${platform.baseUrl}/console`);
    await waitFor(page, 'input[name=clientId]');
    await page.type('input[name=clientId]', 'local-dev');
    await page.type('input[name=clientSecret]', 'not-the-secret');
    await page.click('button[type=submit]');
    await waitFor(page, '.sign-in [role=alert]');
    expect(await texts(page, '.sign-in [role=alert]')).toEqual(['unknown client or wrong secret']);
    expect(await page.evaluate(STORED_SESSION)).toBeNull();
    // The token endpoint's 401 is the only thing the browser reports.
    expect(errors).toEqual([REFUSED_401]);
    await page.close();
  });

  it('signs in with a pasted bearer token (what a personal token will be)', async () => {
    const token = await testClientToken(platform);
    const { page, errors } = await openPage(browser);
    await page.goto(`${platform.baseUrl}/console`);
    await waitFor(page, 'input[name=clientId]');
    await page.click('[role=tab]:nth-child(2)');
    await waitFor(page, 'textarea[name=token]');
    await paste(page, 'textarea[name=token]', `Bearer ${token}`);
    await page.click('button[type=submit]');
    await waitFor(page, `tr[data-ledger="${ledger}"]`);
    expect((await texts(page, 'header .who'))[0]).toMatch(/^local-dev · until /);
    expect(JSON.parse((await page.evaluate(STORED_SESSION)) as string).token).toBe(token);
    expect(page.url()).not.toContain(token);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses a pasted string that is not a token, and signs out when the platform refuses a token', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${platform.baseUrl}/console`);
    await waitFor(page, 'input[name=clientId]');
    await page.click('[role=tab]:nth-child(2)');
    await waitFor(page, 'textarea[name=token]');
    await page.type('textarea[name=token]', 'local-dev-secret');
    await page.click('button[type=submit]');
    await waitFor(page, '.sign-in [role=alert]');
    expect(await texts(page, '.sign-in [role=alert]')).toEqual([
      'that is not a bearer token (a JWT: three base64url parts joined by dots)',
    ]);
    expect(errors).toEqual([]);

    // Well-formed and unexpired, but signed by no key of the platform: the first call is refused (401).
    const [header, payload] = (await testClientToken(platform)).split('.');
    const forged = `${header}.${payload}.${Buffer.from('not a signature').toString('base64url')}`;
    await paste(page, 'textarea[name=token]', forged);
    await page.click('button[type=submit]');
    await waitFor(page, '.sign-in .notice');
    expect(await texts(page, '.sign-in .notice')).toEqual([
      'Your session has ended (the token expired or was refused): sign in again.',
    ]);
    expect(await page.evaluate(STORED_SESSION)).toBeNull();
    expect(errors).toEqual([REFUSED_401]);
    await page.close();
  });

  it('serves the page with a strict content security policy and cacheable, content-hashed assets', async () => {
    const res = await fetch(`${platform.baseUrl}/console`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const html = await res.text();
    const script = /src="(\/console\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${platform.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${platform.baseUrl}/console/assets/app-NOPE.js`);
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { errorCode: 'NOT_FOUND', errorMessage: 'no console asset at /console/assets/app-NOPE.js' },
    ]);
    expect((await fetch(`${platform.baseUrl}/console/`)).status).toBe(200);
  });
});
