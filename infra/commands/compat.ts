/**
 * `npm run compat [-- --base-url URL] [--out PATH]`
 *
 * Probes every operation of the official SDK against the platform and writes docs/compatibility.md (see
 * infra/commands/compat/). Without --base-url it starts the embedded local platform in this process on a free
 * port with a temporary DATA_DIR and stops it afterwards, so nothing needs to be running. The report is the
 * result: operations that fail are rows, not a failure; the exit status is non-zero only when the probe itself
 * could not run (2 for bad usage, 1 for a crash).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SDK_METADATA } from '@formance/formance-sdk/lib/config.js';
import { developmentLogin } from '../local/identity/development-login.js';
import { startPlatform } from '../local/platform.js';
import { runProbe } from './compat/probe.js';
import { coverage, renderReport } from './compat/report.js';

export const DEFAULT_OUT = fileURLToPath(new URL('../../docs/compatibility.md', import.meta.url));
const USAGE = 'usage: npm run compat [-- --base-url URL] [--out PATH]';

export interface CompatArgs {
  /** Probe this running platform instead of starting one. */
  baseUrl?: string;
  out: string;
}

class UsageError extends Error {}

export function parseCompatArgs(argv: readonly string[]): CompatArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { 'base-url': { type: 'string' }, out: { type: 'string' } },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message.split('. ')[0]!);
  }
  const baseUrl = values['base-url']?.replace(/\/+$/, '');
  if (
    baseUrl !== undefined &&
    (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
  ) {
    throw new UsageError(`--base-url: "${baseUrl}" is not an http(s) URL`);
  }
  return { ...(baseUrl ? { baseUrl } : {}), out: resolve(values.out ?? DEFAULT_OUT) };
}

/** The platform to probe: the one at --base-url, or the embedded one on a free port and a throwaway data directory. */
async function platformFor(args: CompatArgs): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  if (args.baseUrl) return { baseUrl: args.baseUrl, stop: async () => undefined };
  const dataDir = await mkdtemp(join(tmpdir(), 'compat-data-'));
  try {
    const platform = await startPlatform({
      port: 0,
      dataDir,
      variables: { LOG_LEVEL: 'silent' },
      ledgerWorkers: 2,
    });
    // Its development admin logs in, so listUsers and readUser have a person to show (best effort: a platform
    // without the default organization has none).
    const idp = platform.identityProvider;
    const admin = idp?.accounts.find((a) => a.platformAdmin);
    if (idp && admin)
      await developmentLogin(platform.baseUrl, idp, admin.email).catch(() => undefined);
    return {
      baseUrl: platform.baseUrl,
      stop: async () => {
        await platform.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export async function main(
  argv: readonly string[],
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<number> {
  let args: CompatArgs;
  try {
    args = parseCompatArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  const platform = await platformFor(args);
  try {
    out(
      `probing ${args.baseUrl ?? 'the embedded local platform'} with @formance/formance-sdk ${SDK_METADATA.sdkVersion}`,
    );
    const rows = await runProbe({ baseUrl: platform.baseUrl });
    await writeFile(args.out, renderReport(rows, SDK_METADATA.sdkVersion));
    for (const c of coverage(rows)) {
      out(
        `${c.service.padEnd(12)} ${String(c.counts.OK).padStart(3)}/${String(c.operations).padEnd(3)} OK (${c.percent}%)  not implemented ${c.counts['NOT-IMPLEMENTED']}, shape ${c.counts.SHAPE}, error ${c.counts.ERROR}`,
      );
    }
    out(`wrote ${args.out}`);
    return 0;
  } finally {
    await platform.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(
        `error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
