import { execFileSync } from 'node:child_process';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import { LAMBDA_NODE_TARGET, lambdaBuildOptions } from '../bundling.js';
import type { AfterBundling } from './bundled-files.js';

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

/**
 * Bundles on this machine with esbuild's own API and `lambdaBuildOptions` as they are, so the stack's bundles are
 * byte for byte those of `npm run build` (NodejsFunction, used before, takes esbuild's command-line options and
 * cannot split a bundle into chunks). Its fields are part of the asset's cache key (CDK hashes the bundling
 * options as JSON): two functions never share a staged bundle.
 */
class LocalEsbuild implements ILocalBundling {
  constructor(
    readonly projectRoot: string,
    readonly entry: string,
    readonly sourcemap: boolean,
    private readonly afterBundling: AfterBundling | undefined,
  ) {}

  tryBundle(outputDir: string): boolean {
    buildSync(lambdaBuildOptions(this.entry, outputDir, { sourcemap: this.sourcemap }));
    for (const command of this.afterBundling?.(this.projectRoot, outputDir) ?? [])
      execFileSync('bash', ['-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
    return true;
  }
}

/**
 * A function's code: its bundle (`index.mjs` and its chunks) and the files beside it (bundled-files.ts), hashed
 * by output. A synth that skips bundling (`aws:cdk:bundling-stacks` empty, as the stack's tests do) stages a
 * placeholder and builds nothing.
 */
export function functionCode(options: {
  projectRoot: string;
  entry: string;
  sourcemap: boolean;
  afterBundling?: AfterBundling | undefined;
}): Code {
  return Code.fromAsset(options.projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never run: local bundling succeeds or throws (Docker is neither needed nor available offline or in CI).
      image: DockerImage.fromRegistry('local-esbuild-only'),
      local: new LocalEsbuild(
        options.projectRoot,
        options.entry,
        options.sourcemap,
        options.afterBundling,
      ),
    },
  });
}
