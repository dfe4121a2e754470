import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const README = join(import.meta.dirname, '..', '..', 'README.md');

/**
 * The fenced code block that follows `<!-- walkthrough: <name> -->` in README.md, exactly as a reader copies it:
 * tests run README walkthroughs verbatim, so the README cannot drift from what works.
 */
export function readmeBlock(name: string): string {
  const text = readFileSync(README, 'utf8');
  const marker = `<!-- walkthrough: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`README has no walkthrough "${name}"`);
  const fence = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (!fence) throw new Error(`README walkthrough "${name}" has no code block`);
  return fence[1]!;
}

/**
 * Runs a script with bash, stopping at the first failing command (`set -euo pipefail`, as a careful reader's
 * shell would), with `env` added to the environment. Resolves with stdout; rejects with stderr on failure.
 */
export function runBash(
  script: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
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
