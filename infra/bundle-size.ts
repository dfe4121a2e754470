import type { Metafile } from 'esbuild';

/**
 * A split bundle's JavaScript files that a cold start loads (infra/bundling.ts): the entry and every chunk it
 * imports statically, transitively, as named in the build's metafile. The other chunks are reached only through
 * `import()`: loaded at a first use, or never.
 */
export function startupFiles(metafile: Metafile): Set<string> {
  // A chunk reached through `import()` is an entry point of the build too: the function's own is under functions/
  // (the bench's reference handler, under bench/).
  const entry = Object.entries(metafile.outputs).find(
    ([file, output]) =>
      file.endsWith('.mjs') &&
      (output.entryPoint?.startsWith('functions/') || output.entryPoint?.startsWith('bench/')),
  );
  if (!entry) throw new Error('the metafile names no entry point');
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const i of metafile.outputs[file]?.imports ?? [])
      if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(entry[0]);
  return files;
}

/** The bytes of JavaScript a cold start loads (`atStart`) and of the chunks loaded later or never (`later`). */
export function startupBytes(metafile: Metafile): { atStart: number; later: number } {
  const atStartFiles = startupFiles(metafile);
  let atStart = 0;
  let later = 0;
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.mjs')) continue; // source maps
    if (atStartFiles.has(file)) atStart += output.bytes;
    else later += output.bytes;
  }
  return { atStart, later };
}
