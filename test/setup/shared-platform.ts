import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import type { FunctionBundles } from '../../infra/local/lambda/function-bundles.js';
import { type RunningPlatform, startPlatform } from '../../infra/local/platform.js';

/** What a test file may know of the run's shared platform: plain values (they cross to the workers). */
export interface SharedPlatformInfo {
  baseUrl: string;
  variables: Record<string, string | undefined>;
  s3: { endpoint: string; directory: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** One default local platform for the files that only need one (test/support/platform.ts, `sharedTestPlatform`). */
    sharedPlatform: SharedPlatformInfo;
  }
}

const run = globalThis as typeof globalThis & {
  testBackends?: { shared: Promise<{ functionBundles: FunctionBundles }> };
};

/**
 * Starts one local platform with the default options for the `cli` project's files that need nothing else of
 * one (no restart, no kill, no option, no metrics of their own): each of them works on ledgers, exporters and
 * configs of its own names, so they share it instead of each starting its processes and JVM. Runs after
 * dynamodb-local.ts (its bundles); stopped when the project is done.
 */
export default async function setup(project: TestProject) {
  const backends = run.testBackends;
  if (!backends) throw new Error('shared-platform.ts runs after dynamodb-local.ts');
  const platform: RunningPlatform = await startPlatform({
    port: 0,
    functionBundles: (await backends.shared).functionBundles,
    resourcePrefix: `s${randomBytes(5).toString('hex')}-`,
    variables: { LOG_LEVEL: 'silent' },
  });
  project.provide('sharedPlatform', {
    baseUrl: platform.baseUrl,
    variables: { ...platform.variables },
    s3: { endpoint: platform.s3.endpoint, directory: platform.s3.directory },
  });
  return () => platform.stop();
}
