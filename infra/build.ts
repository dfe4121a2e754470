/**
 * `npm run build`: one bundle per Lambda, `dist/<function>/index.mjs`, from each file in `functions/`, and the
 * files the stack puts beside it (infra/stacks/bundled-files.ts: OpenAPI documents, the console's files), so a
 * directory of `dist/` is what the stack deploys. SOURCEMAP=true adds source maps.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { lambdaBuildOptions } from './bundling.js';
import { BUNDLED_FILES } from './stacks/bundled-files.js';
import type { FunctionName } from './stacks/functions.js';

const root = new URL('..', import.meta.url).pathname;
const functions = readdirSync(join(root, 'functions')).filter((f) => f.endsWith('.ts'));
const sourcemap = process.env.SOURCEMAP === 'true';

for (const file of functions) {
  const name = basename(file, '.ts');
  const outdir = join(root, 'dist', name);
  const outfile = join(outdir, 'index.mjs');
  rmSync(outdir, { recursive: true, force: true }); // nothing left from an earlier build
  await build(lambdaBuildOptions(join(root, 'functions', file), outfile, { sourcemap }));
  for (const command of BUNDLED_FILES[name as FunctionName]?.(root, outdir) ?? [])
    execFileSync('bash', ['-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
  process.stdout.write(
    `dist/${name}/index.mjs  ${statSync(outfile).size.toLocaleString('en-US')} bytes\n`,
  );
}
