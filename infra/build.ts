/**
 * `npm run build`: one bundle per Lambda, `dist/<function>/index.mjs` and its `chunks/`, from each file in
 * `functions/`, and the files the stack puts beside it (infra/stacks/bundled-files.ts: OpenAPI documents, the
 * console's files), so a directory of `dist/` is what the stack deploys. SOURCEMAP=true adds source maps.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { startupBytes } from './bundle-size.js';
import { LAMBDA_ENTRY_FILE, lambdaBuildOptions } from './bundling.js';
import { BUNDLED_FILES } from './stacks/bundled-files.js';
import type { FunctionName } from './stacks/functions.js';

const root = new URL('..', import.meta.url).pathname;
const functions = readdirSync(join(root, 'functions')).filter((f) => f.endsWith('.ts'));
const sourcemap = process.env.SOURCEMAP === 'true';

for (const file of functions) {
  const name = basename(file, '.ts');
  const outdir = join(root, 'dist', name);
  rmSync(outdir, { recursive: true, force: true }); // nothing left from an earlier build
  const { metafile } = await build({
    ...lambdaBuildOptions(join(root, 'functions', file), outdir, { sourcemap }),
    metafile: true,
  });
  for (const command of BUNDLED_FILES[name as FunctionName]?.(root, outdir) ?? [])
    execFileSync('bash', ['-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
  const { atStart, later } = startupBytes(metafile);
  process.stdout.write(
    `dist/${name}/${LAMBDA_ENTRY_FILE}  ${atStart.toLocaleString('en-US')} bytes at start-up, ${later.toLocaleString('en-US')} in chunks loaded at first use\n`,
  );
}
