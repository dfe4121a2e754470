import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { FunctionBundles } from '../../infra/local/lambda/function-bundles.js';
import { type RunningPlatform, startPlatform } from '../../infra/local/platform.js';

/** What a test file may know of the run's shared platform: plain values (they cross to the workers). */
export interface SharedPlatformInfo {
  baseUrl: string;
  variables: Record<string, string | undefined>;
  s3: { endpoint: string; directory: string };
}

/** What the set-up writes to its file once the platform has started, or why it did not. */
export type SharedPlatformFile = SharedPlatformInfo | { error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The file where one default local platform for the files that only need one describes itself once it has
     * started (test/support/platform.ts, `sharedTestPlatform`, waits for it).
     */
    sharedPlatformFile: string;
  }
}

const run = globalThis as typeof globalThis & {
  testBackends?: {
    shared: Promise<{ functionBundles: FunctionBundles; platformsDynamoEndpoint: string }>;
  };
};

/**
 * Starts one local platform with the default options for the `cli` project's files that need nothing else of
 * one (no restart, no kill, no option, no metrics of their own): each of them works on ledgers, exporters and
 * configs of its own names, so they share it instead of each starting its processes and JVM. Runs after
 * dynamodb-local.ts (its bundles); stopped when the project is done.
 *
 * The start is not waited for here: the run's files begin meanwhile (the CLI suites run after the others, see
 * vitest.config.ts), and a file that needs the platform waits for the file this writes when it is up.
 */
export default async function setup(project: TestProject) {
  const backends = run.testBackends;
  if (!backends) throw new Error('shared-platform.ts runs after dynamodb-local.ts');
  const file = join(tmpdir(), `shared-platform-${randomBytes(6).toString('hex')}.json`);
  project.provide('sharedPlatformFile', file);
  // Written whole, then renamed into place: a reader never sees half of it.
  const describe = (content: SharedPlatformFile) => {
    writeFileSync(`${file}.part`, JSON.stringify(content));
    renameSync(`${file}.part`, file);
  };
  const starting: Promise<RunningPlatform | undefined> = backends.shared
    .then(({ functionBundles, platformsDynamoEndpoint }) =>
      startPlatform({
        port: 0,
        functionBundles,
        // A database of its own on the run's platforms' DynamoDB Local (test/support/platform.ts says why).
        dynamoEndpoint: platformsDynamoEndpoint,
        dynamoLocalAccessKeyId: `shared${randomBytes(6).toString('hex')}`,
        resourcePrefix: `s${randomBytes(5).toString('hex')}-`,
        variables: { LOG_LEVEL: 'silent' },
      }),
    )
    .then(
      (platform) => {
        describe({
          baseUrl: platform.baseUrl,
          variables: { ...platform.variables },
          s3: { endpoint: platform.s3.endpoint, directory: platform.s3.directory },
        });
        return platform;
      },
      (err: unknown) => {
        describe({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
        return undefined;
      },
    );
  return async () => {
    await (await starting)?.stop();
    rmSync(file, { force: true });
  };
}
