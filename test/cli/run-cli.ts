import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root and the CLI's bin, as `npx platform` runs it. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(REPO_ROOT, 'bin', 'platform.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh config home: the CLI keeps its profile under `<home>/platform/`. */
export const tempConfigHome = () => mkdtemp(join(tmpdir(), 'platform-cli-'));

/**
 * The environment of a CLI run: PATH (for Node) and a config home of its own, nothing else of this process's
 * (no PLATFORM_* leaking in from the machine running the tests).
 */
export function cliEnv(configHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, ...extra };
}

/** `platform login` with client credentials (the local platform's static client unless others are given). */
export const loginArgs = (
  baseUrl: string,
  clientId = 'local-dev',
  clientSecret = 'local-dev-secret',
): string[] => [
  'login',
  '--url',
  baseUrl,
  '--client-id',
  clientId,
  '--client-secret',
  clientSecret,
];

/** Starts the CLI as a subprocess (Node running bin/platform.mjs, as the package's `bin`). */
export function spawnCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd = REPO_ROOT,
): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs the CLI to its end and captures what it printed. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string } = {},
): Promise<CliResult> {
  return finished(spawnCli(args, env), options.input);
}

/** Waits for a child to exit, collecting its output. */
export function finished(child: ChildProcess, input?: string): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
  });
  child.stdin!.end(input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Output lines without the final empty one. */
export const lines = (text: string) =>
  text.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
