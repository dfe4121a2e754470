/**
 * `npm run build`: one bundle per Lambda, `dist/<function>/index.mjs`, from each file in `functions/`.
 * SOURCEMAP=true adds source maps.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { lambdaBuildOptions } from './bundling.js';

const root = new URL('..', import.meta.url).pathname;
const functions = readdirSync(join(root, 'functions')).filter((f) => f.endsWith('.ts'));
const sourcemap = process.env.SOURCEMAP === 'true';

for (const file of functions) {
  const name = basename(file, '.ts');
  const outfile = join(root, 'dist', name, 'index.mjs');
  await build(lambdaBuildOptions(join(root, 'functions', file), outfile, { sourcemap }));
  process.stdout.write(
    `dist/${name}/index.mjs  ${(statSync(outfile).size / 1024).toFixed(0)} KiB\n`,
  );
}
