/**
 * `npm run console:build [-- <dir>]`: the console's production files (default dist/console) and their sizes,
 * raw and gzip — the figures docs/guides/console.md states.
 */
import { join, relative } from 'node:path';
import { consoleSizes } from './assets.js';
import { buildConsole } from './build.js';
import { writeConsoleFiles } from './files.js';

const dir = process.argv[2] ?? join(import.meta.dirname, '..', '..', 'dist', 'console');
const assets = await buildConsole();
writeConsoleFiles(assets, dir);
const { files, totalGzipBytes } = consoleSizes(assets);
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
for (const f of files)
  process.stdout.write(
    `${f.name.padEnd(24)} ${kb(f.bytes).padStart(9)}  gzip ${kb(f.gzipBytes)}\n`,
  );
process.stdout.write(`total gzip ${kb(totalGzipBytes)} → ${relative(process.cwd(), dir) || '.'}\n`);
