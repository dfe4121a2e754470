import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LAMBDA_NODE_TARGET, REQUIRE_BANNER, lambdaBuildOptions } from '../../infra/bundling.js';
import { LAMBDA_RUNTIME, nodejsBundlingOptions } from '../../infra/stacks/bundling-options.js';
import { stageConfigFromContext } from '../../infra/stacks/config.js';
import { PlatformFunction } from '../../infra/stacks/functions.js';

describe('bundling settings shared by npm run build and the stack', () => {
  it('translates lambdaBuildOptions to NodejsFunction options: ESM, node22, minified, banner, SDK bundled, local esbuild', () => {
    expect(nodejsBundlingOptions({ sourcemap: false })).toEqual({
      forceDockerBundling: false,
      externalModules: [],
      bundleAwsSDK: true,
      format: OutputFormat.ESM,
      target: LAMBDA_NODE_TARGET,
      minify: true,
      sourceMap: false,
      banner: REQUIRE_BANNER,
      mainFields: ['module', 'main'],
      logLevel: LogLevel.WARNING,
      esbuildArgs: { '--legal-comments': 'none' },
    });
    expect(nodejsBundlingOptions({ sourcemap: true }).sourceMap).toBe(true);
  });

  it('runs the functions on the runtime of the bundles\' target', () => {
    expect(LAMBDA_NODE_TARGET).toBe('node22');
    expect(LAMBDA_RUNTIME.name).toBe('nodejs22.x');
  });

  // rotate-keys is the smallest; ledger-writer is the one queue consumer that also drains its queue itself.
  it.each(['rotate-keys', 'ledger-writer'] as const)('bundles %s offline with local esbuild, byte for byte what npm run build writes', async (name) => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-bundling-'));
    const app = new App({ outdir: join(outdir, 'assembly') });
    const stack = new Stack(app, 'bundling');
    const config = stageConfigFromContext({ tryGetContext: (k) => ({ stage: 'dev' })[k as 'stage'] });
    new PlatformFunction(stack, { name, description: 'test', timeout: Duration.seconds(30), memorySize: 512, environment: {} }, config, 'bundling-');
    const assembly = app.synth();
    const assetDir = readdirSync(assembly.directory).find((d) => d.startsWith('asset.'))!;
    expect(readdirSync(join(assembly.directory, assetDir))).toEqual(['index.mjs']);
    const code = readFileSync(join(assembly.directory, assetDir, 'index.mjs'), 'utf8');
    expect(code.startsWith(`${REQUIRE_BANNER}\n`)).toBe(true);
    expect(code).not.toMatch(/from\s*["']@aws-sdk\//); // bundled, not imported from the runtime
    expect(code).toContain('dynamodb'); // the DynamoDB client is in the bundle
    await build(lambdaBuildOptions(join(import.meta.dirname, '..', '..', 'functions', `${name}.ts`), join(outdir, 'build', 'index.mjs')));
    expect(code === readFileSync(join(outdir, 'build', 'index.mjs'), 'utf8')).toBe(true);
    rmSync(outdir, { recursive: true, force: true });
  }, 60_000);
});
