/**
 * A real headless Chromium for page tests, with nothing installed beyond `npm install`: `@sparticuz/chromium`
 * ships the browser inside its npm package (unpacked to /tmp on first use) and `puppeteer-core` drives it.
 *
 * The machine's network is closed: Chromium's background services (updates, sync, safe browsing) would try to
 * reach Google at every start, so they are switched off.
 */
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type ConsoleMessage, type Page } from 'puppeteer-core';

const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, ...QUIET_FLAGS],
    headless: 'shell',
    defaultViewport: { width: 1280, height: 900 },
  });
}

/** A new page that records every console error and uncaught page error, for "loads with no errors" checks. */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) =>
    errors.push(error instanceof Error ? error.message : String(error)),
  );
  return { page, errors };
}
