import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { build, type Metafile } from 'esbuild';
import { lambdaBuildOptions } from '../../infra/bundling.js';
import { BUNDLED_FILES } from '../../infra/stacks/bundled-files.js';
import type { FunctionName } from '../../infra/stacks/functions.js';

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResult>;

const run = promisify(execFile);
export const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;

/** `functions/<name>.ts` bundled into `dir` (`index.mjs`, `chunks/`) with the production esbuild settings; its metafile. */
export async function bundleFunction(name: FunctionName, dir: string): Promise<Metafile> {
  const result = await build({
    ...lambdaBuildOptions(join(PROJECT_ROOT, 'functions', `${name}.ts`), dir),
    metafile: true,
  });
  return result.metafile;
}

/**
 * A function as the stack deploys it: its bundle, then the stack's `afterBundling` commands run beside it
 * (infra/stacks/bundled-files.ts), as the stack's bundling runs them (infra/stacks/function-code.ts).
 */
export async function deployableFunction(name: FunctionName, dir: string): Promise<Metafile> {
  const metafile = await bundleFunction(name, dir);
  for (const command of BUNDLED_FILES[name]?.(PROJECT_ROOT, dir) ?? [])
    await run('bash', ['-c', command]);
  return metafile;
}

/** The bundle's `handler`, imported as Lambda's runtime imports it (from the environment as it is now). */
export async function bundledHandler(dir: string): Promise<HttpHandler> {
  const module = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as {
    handler: HttpHandler;
  };
  return module.handler;
}
