/**
 * The console for `npm start`: bundled from its sources at the first request to /console, once per process
 * (a build that fails is tried again at the next request, so a fixed source does not need a restart).
 */
import type { ConsoleAssets } from './assets.js';
import { buildConsole } from './build.js';
import { createConsoleSite } from './site.js';

let built: Promise<ConsoleAssets> | undefined;

export function builtConsoleAssets(): Promise<ConsoleAssets> {
  built ??= buildConsole().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

/** The site the local gateway mounts. */
export const localConsoleSite = () => createConsoleSite(builtConsoleAssets);
