import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { lambdaBuildOptions } from '../../bundling.js';

/**
 * The modules the local platform runs in worker processes, bundled as the stack bundles them
 * (`lambdaBuildOptions`), with the worker's own entry beside them. A worker then loads one file instead of
 * compiling hundreds through tsx: about 0.1 s of CPU against 0.8 s, for each of a platform's five or more
 * processes — what made test files that start platforms slow everything beside them.
 */
export interface FunctionBundles {
  /** The bundled `worker-main.ts`: what each worker process runs. */
  workerMain: string;
  ledger: string;
  ledgerWriter: string;
}

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Each bundle's source, and its directory and entry name in the output directory (chunks go in `<dir>/chunks/`).
 * File names keep the function's name, so a process list shows which function a worker runs.
 */
const BUNDLES: Record<keyof FunctionBundles, { entry: string; dir: string; name: string }> = {
  workerMain: { entry: source('./worker-main.ts'), dir: '.', name: 'worker-main' },
  ledger: { entry: source('../../../functions/ledger.ts'), dir: 'functions', name: 'ledger' },
  ledgerWriter: {
    entry: source('../../../functions/ledger-writer.ts'),
    dir: 'functions',
    name: 'ledger-writer',
  },
};

/**
 * Builds the bundles into `outDir` (created when absent). Not minified and with source maps, so a worker's
 * stack trace names the TypeScript source (workers run with `--enable-source-maps`).
 */
export async function buildFunctionBundles(outDir: string): Promise<FunctionBundles> {
  const built = await Promise.all(
    Object.entries(BUNDLES).map(async ([key, { entry, dir, name }]) => {
      const options = lambdaBuildOptions(entry, join(outDir, dir), {
        sourcemap: true,
        entryName: name,
      });
      await build({ ...options, minify: false });
      return [key, join(outDir, dir, `${name}.mjs`)] as const;
    }),
  );
  return Object.fromEntries(built) as Record<keyof FunctionBundles, string>;
}

/** Bundles in a fresh temporary directory, and how to remove it. */
export async function temporaryFunctionBundles(): Promise<{
  bundles: FunctionBundles;
  remove(): void;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-functions-'));
  try {
    return {
      bundles: await buildFunctionBundles(dir),
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
