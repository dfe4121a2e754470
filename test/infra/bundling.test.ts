import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LAMBDA_NODE_TARGET, lambdaBuildOptions, REQUIRE_BANNER } from '../../infra/bundling.js';
import { BUNDLED_FILES } from '../../infra/stacks/bundled-files.js';
import { stageConfigFromContext } from '../../infra/stacks/config.js';
import { LAMBDA_RUNTIME } from '../../infra/stacks/function-code.js';
import { PlatformFunction } from '../../infra/stacks/functions.js';
import { deployableFunction } from '../support/bundled-function.js';

/** Every file under `dir`, relative to it, sorted. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

describe('bundling settings shared by npm run build and the stack', () => {
  it("runs the functions on the runtime of the bundles' target", () => {
    expect(LAMBDA_NODE_TARGET).toBe('node22');
    expect(LAMBDA_RUNTIME.name).toBe('nodejs22.x');
  });

  // rotate-keys is the smallest; the ledger has chunks loaded at first use and OpenAPI files beside its bundle.
  it.each(['rotate-keys', 'ledger'] as const)(
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
          variables: {},
          afterBundling: BUNDLED_FILES[name],
        },
        config,
        'bundling-',
      );
      const assembly = app.synth();
      const assetDir = readdirSync(assembly.directory).find((d) => d.startsWith('asset.'))!;
      const deployed = join(assembly.directory, assetDir);
      const code = readFileSync(join(deployed, 'index.mjs'), 'utf8');
      expect(code.startsWith(`${REQUIRE_BANNER}\n`)).toBe(true);
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//); // bundled, not imported from the runtime
      expect(filesUnder(deployed).some((f) => f.startsWith('chunks/'))).toBe(true);
      const built = join(outdir, 'build');
      await deployableFunction(name, built);
      expect(filesUnder(deployed)).toEqual(filesUnder(built));
      const differing = filesUnder(built).filter(
        (f) => !readFileSync(join(deployed, f)).equals(readFileSync(join(built, f))),
      );
      expect(differing).toEqual([]);
      rmSync(outdir, { recursive: true, force: true });
    },
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
      ...lambdaBuildOptions(entry, dir),
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
  });
});
