import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform } from '../support/platform.js';
import { readmeBlock, runBash } from '../support/readme.js';

/**
 * The ledger guide's "Beyond the reference" walkthrough (docs/guides/ledger.md: limits, preconditions, balance
 * history), run verbatim with bash, curl and jq against a local platform as `npm start` runs it, after the
 * auth guide's walkthrough that leaves `$BASE` and `$TOKEN`.
 */
let platform: RunningPlatform;
const LOCAL = 'http://127.0.0.1:8080';

beforeAll(async () => {
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform?.stop();
});

describe('ledger guide: beyond the reference', () => {
  it('limits, preconditions and balance history, as written', async () => {
    const script = ['auth', 'ledger-beyond'].map(readmeBlock).join('\n');
    expect(script.split(LOCAL)).toHaveLength(2);
    const out = await runBash(script.replace(LOCAL, platform.baseUrl), {});
    // The auth walkthrough's own lines come first; this one's follow its last line.
    expect(out.slice(out.indexOf('[{"account"'))).toBe(
      [
        '[{"account":"wallet:*","asset":"USD/2","min":0,"max":50000}]',
        '1',
        '{"errorCode":"LIMIT_EXCEEDED","errorMessage":"account \\"wallet:bob\\" USD/2: balance would be 60000, above the maximum 50000, which breaks limits rule 0 (wallet:*)"} 400',
        '2',
        '{"errorCode":"PRECONDITION_FAILED","errorMessage":"expect[0]: wallet:bob USD/2 balance is 18000 before the write, expected $eq 30000; expect[1]: wallet:bob USD/2 balance is 6000 after the write, expected $gte 10000"} 409',
        '[["2026-01-01T10:00:00Z",1,30000],["2026-01-01T12:00:00Z",2,18000]]',
        '[["2026-01-01T06:00:00Z",0],["2026-01-01T12:00:00Z",18000],["2026-01-01T18:00:00Z",18000]]',
        '',
      ].join('\n'),
    );
  });
});
