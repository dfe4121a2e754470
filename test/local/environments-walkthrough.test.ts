import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform } from '../support/platform.js';
import { readmeBlock, runBash } from '../support/readme.js';

/**
 * The environments guide (docs/guides/environments.md), run verbatim with bash, curl and jq against
 * the local platform (its one line `BASE=...` pointed at this platform's port), twice: the first run on a fresh
 * platform, the second on what the first left.
 */
let platform: RunningPlatform;
let script: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  const block = readmeBlock('environments');
  const base = 'BASE=http://127.0.0.1:8080\n';
  expect(block.split(base)).toHaveLength(2);
  script = block.replace(base, `BASE=${platform.baseUrl}\n`);
});

afterAll(async () => {
  await platform?.stop();
});

describe('README walkthrough: environments, persons and personal tokens', () => {
  it('runs as written: login, platform token, sandbox, personal token, ledger calls, an environment client', async () => {
    const lines = (await runBash(script, {})).trim().split('\n');
    expect(lines).toEqual([
      '[{"id":"default","name":"Default organization","role":"admin"}]',
      'NO_SANDBOX_ENVIRONMENT',
      expect.stringMatching(/^sandbox environment: sandbox-[a-z0-9]{8}$/),
      '{"id":1,"postings":[{"source":"world","destination":"users:alice","amount":100,"asset":"USD/2"}]}',
      '[1]',
      'NOT_FOUND',
    ]);
  });

  it('runs again on what the first run left: a sandbox exists, so step 3 issues a token', async () => {
    const lines = (await runBash(script, {})).trim().split('\n');
    expect(lines[1]).toBe('null');
    expect(lines[2]).toMatch(/^sandbox environment: sandbox-[a-z0-9]{8}$/);
    expect(lines.at(-1)).toBe('NOT_FOUND');
  });
});
