// The CLI's bundle (dist/platform-cli.mjs, one level down as cli/main.ts is, so its `../package.json` resolves alike): built from cli/main.ts with esbuild at the first call and again whenever
// one of the files it was built from changed, so `npx platform` starts without compiling TypeScript (tsx took 2-4 s
// a call) and never runs code older than its source. Plain JavaScript: it runs before anything can compile.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** True when the bundle is missing, or a file it was built from (listed beside it) is newer or gone. */
export function isStale(bundleFile, inputsFile) {
  let built;
  let inputs;
  try {
    built = statSync(bundleFile).mtimeMs;
    inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return true;
  }
  const root = dirname(inputsFile);
  return inputs.some((input) => {
    try {
      return statSync(resolve(root, input)).mtimeMs > built;
    } catch {
      return true;
    }
  });
}

/**
 * Builds the bundle: the CLI and the repository code it imports in one ES module, its npm packages left to Node to
 * load from node_modules. Written under a temporary name and renamed, so a call running meanwhile reads a whole file.
 */
export async function buildBundle(repoRoot, bundleFile, inputsFile) {
  const { build } = await import('esbuild');
  const outdir = dirname(bundleFile);
  mkdirSync(outdir, { recursive: true });
  const temporary = `${bundleFile}.${process.pid}.tmp`;
  const result = await build({
    entryPoints: [join(repoRoot, 'cli', 'main.ts')],
    outfile: temporary,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node22',
    metafile: true,
    logLevel: 'error',
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) =>
    relative(outdir, resolve(repoRoot, input)),
  );
  writeFileSync(`${inputsFile}.${process.pid}.tmp`, JSON.stringify(inputs));
  renameSync(temporary, bundleFile);
  renameSync(`${inputsFile}.${process.pid}.tmp`, inputsFile);
}
