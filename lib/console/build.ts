/**
 * Bundles the console (`console/`, Preact) with esbuild, in memory: one content-hashed script, one stylesheet,
 * and the page naming them. `npm start` builds it at the first request to /console (lib/console/local.ts);
 * `npm run console:build` writes the same files to dist/console for a deployment.
 */
import { join } from 'node:path';
import { ASSETS_PATH, type ConsoleAssets, consoleAsset } from './assets.js';

const projectRoot = join(import.meta.dirname, '..', '..');
export const CONSOLE_ENTRY = join(projectRoot, 'console', 'main.tsx');

/**
 * Browsers the bundle is written for: BigInt (exact amounts) and WebCrypto (the log's hashes) need 2020-era
 * engines anyway, so nothing older is worth down-levelling for.
 */
const BROWSER_TARGETS = ['chrome109', 'firefox115', 'safari16', 'edge109'];

export async function buildConsole(): Promise<ConsoleAssets> {
  // Imported here, not at the top: a platform that never serves the console never loads esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [CONSOLE_ENTRY],
    bundle: true,
    write: false,
    outdir: '/console-out',
    entryNames: 'app-[hash]',
    format: 'esm',
    platform: 'browser',
    target: BROWSER_TARGETS,
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const files = new Map(
    result.outputFiles.map((f) => {
      const name = f.path.slice(f.path.lastIndexOf('/') + 1);
      return [name, consoleAsset(name, f.contents)] as const;
    }),
  );
  const script = [...files.keys()].find((n) => n.endsWith('.js'));
  const stylesheet = [...files.keys()].find((n) => n.endsWith('.css'));
  if (!script || !stylesheet) throw new Error('console build produced no script or no stylesheet');
  return { index: consoleAsset('index.html', page(script, stylesheet)), files };
}

function page(script: string, stylesheet: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>Platform console</title>',
    // An empty icon: without it the browser asks for /favicon.ico, which the platform does not serve.
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="${ASSETS_PATH}/${stylesheet}">`,
    `<script type="module" src="${ASSETS_PATH}/${script}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"></div>',
    '<noscript>The console needs JavaScript.</noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
