import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, type LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { LAMBDA_NODE_TARGET, lambdaBuildOptions } from '../bundling.js';

/**
 * The runtime follows the bundles' esbuild target (`infra/bundling.ts`), so the code is never built for a
 * Node.js other than the one that runs it. Moving to a newer runtime means changing the target there.
 */
export const LAMBDA_RUNTIME: Runtime = (() => {
  const runtimes: Record<string, Runtime> = {
    node22: Runtime.NODEJS_22_X,
    node24: Runtime.NODEJS_24_X,
  };
  const runtime = runtimes[LAMBDA_NODE_TARGET];
  if (!runtime) throw new Error(`no Lambda runtime for esbuild target ${LAMBDA_NODE_TARGET}`);
  return runtime;
})();

/** Options of `lambdaBuildOptions` that are per bundle (where from, where to) rather than how to build. */
const PER_BUNDLE = new Set(['entryPoints', 'outfile']);
/** Options NodejsFunction always sets itself, to the values `lambdaBuildOptions` also has. */
const IMPLIED: Partial<Record<keyof BuildOptions, unknown>> = { bundle: true, platform: 'node' };

/**
 * `lambdaBuildOptions` (what `npm run build` uses) translated to NodejsFunction bundling options, so the stack's
 * bundles are built with exactly the same esbuild settings. An esbuild option this function does not know
 * throws: adding one to `infra/bundling.ts` must come with its translation here.
 */
export function nodejsBundlingOptions(options: { sourcemap: boolean }): BundlingOptions {
  const build = lambdaBuildOptions('entry.ts', 'out/index.mjs', options);
  const bundling: { -readonly [K in keyof BundlingOptions]: BundlingOptions[K] } = {
    // esbuild runs from node_modules; Docker is never needed (and not available offline or in CI).
    forceDockerBundling: false,
    // The AWS SDK is bundled, not taken from the runtime: the version we test is the version that runs.
    externalModules: [],
    bundleAwsSDK: true,
  };
  const esbuildArgs: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(build) as [keyof BuildOptions, unknown][]) {
    if (PER_BUNDLE.has(key)) continue;
    if (key in IMPLIED) {
      if (IMPLIED[key] !== value)
        throw new Error(
          `infra/bundling.ts: ${key}=${String(value)} cannot be expressed for NodejsFunction`,
        );
      continue;
    }
    switch (key) {
      case 'format':
        if (value !== 'esm')
          throw new Error('infra/bundling.ts: only ESM bundles are supported by the stack');
        bundling.format = OutputFormat.ESM;
        break;
      case 'target':
        bundling.target = value as string;
        break;
      case 'minify':
        bundling.minify = value as boolean;
        break;
      case 'sourcemap':
        bundling.sourceMap = value as boolean;
        break;
      case 'banner':
        bundling.banner = (value as { js: string }).js;
        break;
      case 'mainFields':
        bundling.mainFields = value as string[];
        break;
      case 'logLevel':
        bundling.logLevel = value as LogLevel;
        break;
      case 'legalComments':
        esbuildArgs['--legal-comments'] = value as string;
        break;
      case 'dropLabels':
        esbuildArgs['--drop-labels'] = (value as string[]).join(',');
        break;
      case 'alias':
        for (const [from, to] of Object.entries(value as Record<string, string>))
          esbuildArgs[`--alias:${from}`] = to;
        break;
      default:
        throw new Error(
          `infra/bundling.ts: esbuild option "${key}" has no NodejsFunction translation in infra/stacks/bundling-options.ts`,
        );
    }
  }
  bundling.esbuildArgs = esbuildArgs;
  return bundling;
}
