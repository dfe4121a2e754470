import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform, testClientToken } from '../support/platform.js';
import { readmeBlock, runBash } from '../support/readme.js';

/**
 * README's "Ledger walkthrough (curl)", its point-in-time and mapping blocks, run verbatim with bash, curl and jq
 * against a local platform, with `$BASE` and `$TOKEN` as the walkthrough before it leaves them (a token of the
 * test client). Before, the point-in-time block read a date before any data and printed `null`.
 */
let platform: RunningPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform?.stop();
});

describe('README walkthrough: the ledger', () => {
  it('runs as written, and prints what the reader is told to expect', async () => {
    const script = ['ledger', 'ledger-pit', 'ledger-mapping'].map(readmeBlock).join('\n');
    const out = await runBash(script, {
      BASE: platform.baseUrl,
      TOKEN: await testClientToken(platform),
    });
    expect(out.trim().split('\n')).toEqual([
      '2', // the transfer's id
      '{"errorCode":"INSUFFICIENT_FUND","errorMessage":"account \\"users:alice\\" has insufficient funds for posting 0 (999999 USD/2): balance would be -992499"} 400',
      '{"USD/2":{"input":10000,"output":2500,"balance":7500}}',
      '{"USD/2":0}',
      '[{"source":"merchants:acme","destination":"users:alice","amount":2500,"asset":"USD/2"}]',
      '[3,2,1]',
      'ok: 3 log entries verified',
      // As of the funding: her first 10000, and that transaction alone.
      '{"USD/2":{"input":10000,"output":0,"balance":10000}}',
      '[1]',
      '"users:*"',
      '[3,2,1]',
    ]);
  });
});
