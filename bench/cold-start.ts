/**
 * Cold start: every Lambda bundle, built now with the production esbuild settings (infra/bundling.ts) into a
 * temporary directory, and the reference bundle built the same way. A bundle's size is what its cold start
 * loads (its entry and the chunks that imports statically, infra/bundle-size.ts); the chunks it loads at a
 * first use are counted apart. Each is imported in fresh `node` processes
 * (rounds interleave the bundles, so a noisy moment hits all of them alike); the child times only the
 * `import()`, with plausible function variables and fake credentials, so nothing reaches the network.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { startupBytes } from '../infra/bundle-size.js';
import { LAMBDA_ENTRY_FILE, lambdaBuildOptions } from '../infra/bundling.js';
import { tableVariables } from '../lib/resources/definitions.js';
import { median, round } from './stats.js';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;

export const COLD_START_RUNS = 15;
export const MAX_IMPORT_RATIO = 1.5;
/** 600 KB loaded at start-up, read strictly as 600,000 bytes. */
export const MAX_BUNDLE_BYTES = 600_000;

export interface BundleResult {
  name: string;
  /** Loaded by a cold start: the entry and its static chunks. */
  bytes: number;
  /** In chunks loaded at a first use (`import()`), or never. */
  laterBytes: number;
  importMedianMs: number;
  importMinMs: number;
  importMaxMs: number;
  ratioToReference: number;
  sizeOk: boolean;
  importOk: boolean;
  /** The bundle exported a `handler` function. */
  exportsHandler: boolean;
}

export interface ColdStartResult {
  source: string;
  runs: number;
  reference: {
    bytes: number;
    laterBytes: number;
    importMedianMs: number;
    importMinMs: number;
    importMaxMs: number;
  };
  bundles: BundleResult[];
}

/** What a deployed function would find in its environment; the credentials are fake and never used. */
const FUNCTION_VARIABLES: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  STAGE: 'dev',
  PUBLIC_BASE_URL: 'https://example.com',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDBENCHFAKE',
  AWS_SECRET_ACCESS_KEY: 'bench-fake-secret',
  DELIVERIES_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-deliveries',
  LEDGER_INGRESS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-ledger-ingress',
  PIPELINE_WAKES_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-pipeline-wakes',
  LOG_LEVEL: 'silent',
  ...tableVariables('bench-'),
};

// The child: time the import alone, and report whether a handler came out of it.
const PROBE = `
const { pathToFileURL } = await import('node:url');
const t0 = performance.now();
const mod = await import(pathToFileURL(process.env.BENCH_BUNDLE).href);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, handler: typeof mod.handler === 'function' }));
`;

async function importOnce(file: string): Promise<{ ms: number; handler: boolean }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE], {
    env: { ...FUNCTION_VARIABLES, BENCH_BUNDLE: file },
    cwd: tmpdir(),
  });
  return JSON.parse(stdout) as { ms: number; handler: boolean };
}

export async function measureColdStart(log: (line: string) => void): Promise<ColdStartResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const entries = [
      ...readdirSync(join(root, 'functions'))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => ({ name: basename(f, '.ts'), entry: join(root, 'functions', f) })),
      { name: 'reference', entry: join(root, 'bench', 'reference-handler.ts') },
    ];
    const bundles = [];
    for (const { name, entry } of entries) {
      const outdir = join(dir, name);
      const { metafile } = await build({ ...lambdaBuildOptions(entry, outdir), metafile: true });
      const { atStart, later } = startupBytes(metafile);
      bundles.push({
        name,
        file: join(outdir, LAMBDA_ENTRY_FILE),
        bytes: atStart,
        laterBytes: later,
        samples: [] as number[],
        handler: true,
      });
    }
    log(
      `  built ${bundles.length} bundles; importing each ${COLD_START_RUNS} times in fresh node processes`,
    );
    for (const b of bundles) await importOnce(b.file); // one unrecorded run each: file-system cache warm for all
    for (let round_ = 0; round_ < COLD_START_RUNS; round_++) {
      for (const b of bundles) {
        const { ms, handler } = await importOnce(b.file);
        b.samples.push(ms);
        b.handler &&= handler;
      }
    }
    const ref = bundles.find((b) => b.name === 'reference')!;
    const refMedian = median(ref.samples);
    return {
      source: `esbuild with infra/bundling.ts settings; import() timed inside ${COLD_START_RUNS} fresh node ${process.version} processes per bundle`,
      runs: COLD_START_RUNS,
      reference: {
        bytes: ref.bytes,
        laterBytes: ref.laterBytes,
        importMedianMs: round(refMedian, 1),
        importMinMs: round(Math.min(...ref.samples), 1),
        importMaxMs: round(Math.max(...ref.samples), 1),
      },
      bundles: bundles
        .filter((b) => b !== ref)
        .map((b) => {
          const m = median(b.samples);
          return {
            name: b.name,
            bytes: b.bytes,
            laterBytes: b.laterBytes,
            importMedianMs: round(m, 1),
            importMinMs: round(Math.min(...b.samples), 1),
            importMaxMs: round(Math.max(...b.samples), 1),
            ratioToReference: round(m / refMedian, 2),
            sizeOk: b.bytes <= MAX_BUNDLE_BYTES,
            importOk: m <= MAX_IMPORT_RATIO * refMedian,
            exportsHandler: b.handler,
          };
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
