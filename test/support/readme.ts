import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_LIMIT_MS, WAIT_LIMIT_MS } from './time-scale.js';

const ROOT = join(import.meta.dirname, '..', '..');
const GUIDES = join(ROOT, 'docs', 'guides');

/** README.md and every guide of docs/guides: where the walkthroughs a reader runs are. */
export function documentFiles(): string[] {
  return [
    join(ROOT, 'README.md'),
    ...readdirSync(GUIDES)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => join(GUIDES, f)),
  ];
}

/**
 * The fenced code block that follows `<!-- walkthrough: <name> -->` in README.md or a guide (docs/guides), exactly
 * as a reader copies it: tests run the walkthroughs verbatim, so the documents cannot drift from what works.
 */
export function readmeBlock(name: string): string {
  const marker = `<!-- walkthrough: ${name} -->`;
  for (const file of documentFiles()) {
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(marker);
    if (at < 0) continue;
    const fence = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
    if (!fence) throw new Error(`walkthrough "${name}" has no code block`);
    return fence[1]!;
  }
  throw new Error(`no walkthrough "${name}" in README.md or docs/guides`);
}

/**
 * Runs a script with bash, stopping at the first failing command (`set -euo pipefail`, as a careful reader's
 * shell would), with `env` added to the environment. Resolves with stdout; rejects with stderr on failure.
 */
export function runBash(
  script: string,
  env: Record<string, string>,
  timeoutMs = TEST_LIMIT_MS - WAIT_LIMIT_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', `set -euo pipefail\n${script}`],
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
