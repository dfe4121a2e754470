/** Driving the console in the test browser: sign in, go to a screen, read what it shows. */
import type { Page } from 'puppeteer-core';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';

/** How long a screen may take to show something: the run's one wait limit (test/support/time-scale.ts). */
export const SCREEN_TIMEOUT_MS = WAIT_LIMIT_MS;

/** Opens the console and signs in with the local test client, as a user would type it. */
export async function signIn(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.waitForSelector('input[name=clientId]', { timeout: SCREEN_TIMEOUT_MS });
  await page.type('input[name=clientId]', 'local-dev');
  await page.type('input[name=clientSecret]', 'local-dev-secret');
  await page.click('button[type=submit]');
  await page.waitForSelector('header .who', { timeout: SCREEN_TIMEOUT_MS });
}

/** Goes to a console route (`#/…`) in the same page: the session stays, as when a user clicks. */
export async function openScreen(page: Page, baseUrl: string, route: string): Promise<void> {
  await page.goto(`${baseUrl}/console${route}`);
}

export async function waitFor(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector, { timeout: SCREEN_TIMEOUT_MS });
}

/** Text of every element matching `selector`, trimmed. */
export function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (elements) =>
    elements.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()),
  );
}

/** The metadata shown in `selector` (a `dl.metadata`), as an object. */
export function metadataIn(page: Page, selector: string): Promise<Record<string, string>> {
  return page.$eval(selector, (dl) =>
    Object.fromEntries(
      [...dl.querySelectorAll('div')].map((d) => [
        d.querySelector('dt')?.textContent ?? '',
        d.querySelector('dd')?.textContent ?? '',
      ]),
    ),
  );
}
