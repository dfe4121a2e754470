/**
 * The console's built files on disk, for a deployment: `npm run console:build` writes them (dist/console), and a
 * function that serves the console reads them back once, at its first /console request, so serving the console
 * costs nothing at cold start (docs/guides/console.md: how it is served in AWS).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConsoleAssets, consoleAsset } from './assets.js';

export function writeConsoleFiles(assets: ConsoleAssets, dir: string): void {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), assets.index.body);
  for (const [name, asset] of assets.files) writeFileSync(join(dir, 'assets', name), asset.body);
}

export function readConsoleFiles(dir: string): ConsoleAssets {
  return {
    index: consoleAsset('index.html', readFileSync(join(dir, 'index.html'))),
    files: new Map(
      readdirSync(join(dir, 'assets')).map((name) => [
        name,
        consoleAsset(name, readFileSync(join(dir, 'assets', name))),
      ]),
    ),
  };
}

/** A loader for `createConsoleSite`: the files of `dir`, read at the first request and kept. */
export function consoleFilesLoader(dir: string): () => Promise<ConsoleAssets> {
  let assets: ConsoleAssets | undefined;
  return async () => {
    assets ??= readConsoleFiles(dir);
    return assets;
  };
}
