import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  LAMBDA_CREDENTIALS,
  LAMBDA_NODE_HTTP,
  LAMBDA_NODE_TARGET,
  LAMBDA_YAML,
  lambdaBuildOptions,
  REQUIRE_BANNER,
} from '../../infra/bundling.js';
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
      esbuildArgs: {
        '--legal-comments': 'none',
        '--alias:@aws-sdk/credential-provider-node': LAMBDA_CREDENTIALS,
        '--alias:node:http': LAMBDA_NODE_HTTP,
        '--alias:yaml': LAMBDA_YAML,
        '--drop-labels': 'openapi',
      },
    });
    expect(nodejsBundlingOptions({ sourcemap: true }).sourceMap).toBe(true);
  });

  it("runs the functions on the runtime of the bundles' target", () => {
    expect(LAMBDA_NODE_TARGET).toBe('node22');
    expect(LAMBDA_RUNTIME.name).toBe('nodejs22.x');
  });

  // rotate-keys is the smallest; ledger-writer is the one queue consumer that also drains its queue itself.
  it.each(['rotate-keys', 'ledger-writer'] as const)(
    'bundles %s offline with local esbuild, byte for byte what npm run build writes',
    async (name) => {
      const outdir = mkdtempSync(join(tmpdir(), 'cdk-bundling-'));
      const app = new App({ outdir: join(outdir, 'assembly') });
      const stack = new Stack(app, 'bundling');
      const config = stageConfigFromContext({
        tryGetContext: (k) => ({ stage: 'dev' })[k as 'stage'],
      });
      new PlatformFunction(
        stack,
        {
          name,
          description: 'test',
          timeout: Duration.seconds(30),
          memorySize: 512,
          environment: {},
        },
        config,
        'bundling-',
      );
      const assembly = app.synth();
      const assetDir = readdirSync(assembly.directory).find((d) => d.startsWith('asset.'))!;
      expect(readdirSync(join(assembly.directory, assetDir))).toEqual(['index.mjs']);
      const code = readFileSync(join(assembly.directory, assetDir, 'index.mjs'), 'utf8');
      expect(code.startsWith(`${REQUIRE_BANNER}\n`)).toBe(true);
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//); // bundled, not imported from the runtime
      expect(code).toContain('dynamodb'); // the DynamoDB client is in the bundle
      await build(
        lambdaBuildOptions(
          join(import.meta.dirname, '..', '..', 'functions', `${name}.ts`),
          join(outdir, 'build', 'index.mjs'),
        ),
      );
      expect(code === readFileSync(join(outdir, 'build', 'index.mjs'), 'utf8')).toBe(true);
      rmSync(outdir, { recursive: true, force: true });
    },
    60_000,
  );

  it('bundles sign with the credentials Lambda puts in the environment (the default chain is replaced)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-credentials-'));
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      [
        "import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';",
        'const client = new DynamoDBClient({ endpoint: process.env.ENDPOINT, region: "eu-west-1", maxAttempts: 1 });',
        'await client.send(new ListTablesCommand({})).catch(() => undefined);',
      ].join('\n'),
    );
    await build({
      ...lambdaBuildOptions(entry, join(dir, 'index.mjs')),
      nodePaths: [join(import.meta.dirname, '..', '..', 'node_modules')],
    });
    const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(bundle).not.toContain('credential-provider-sso');
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ''));
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{"TableNames":[]}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const env = {
      PATH: process.env.PATH,
      ENDPOINT: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'AKIDLAMBDAENV',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
    };
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [join(dir, 'index.mjs')], { env }, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    server.close();
    rmSync(dir, { recursive: true, force: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDLAMBDAENV\/\d{8}\/eu-west-1\/dynamodb\/aws4_request/,
    );
  }, 60_000);
});
