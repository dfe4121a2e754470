// `npm run lint` (part): every function of lib/, functions/, infra/local and cli/ (tests aside) under
// MAX_FUNCTION_LINES lines, route registrations exempt (long-functions.ts). Prints each one over and exits 1.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { longFunctions, MAX_FUNCTION_LINES } from './function-length/long-functions.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['lib', 'functions', 'infra/local', 'cli'];

function* sources(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name)) yield path;
  }
}

let over = 0;
for (const folder of FOLDERS) {
  for (const path of sources(join(ROOT, folder))) {
    for (const fn of longFunctions(path, readFileSync(path, 'utf8'))) {
      over++;
      console.error(`${relative(ROOT, path)}:${fn.line} ${fn.name}: ${fn.lines} lines`);
    }
  }
}
if (over > 0) {
  console.error(
    `${over} function(s) over ${MAX_FUNCTION_LINES} lines: split them into named steps`,
  );
  process.exit(1);
}
