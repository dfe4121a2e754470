import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';
import {
  type FunctionBundles,
  temporaryFunctionBundles,
} from '../../infra/local/lambda/function-bundles.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    /**
     * The local platforms' DynamoDB Local: one database per access key id, so each platform started on it with a
     * key of its own has its tables, streams and their cost to itself (test/support/platform.ts).
     */
    platformsDynamoEndpoint: string;
    /** The ledger's function bundles, built once for every local platform the run starts. */
    functionBundles: FunctionBundles;
  }
}

interface Shared {
  dynamoEndpoint: string;
  platformsDynamoEndpoint: string;
  functionBundles: FunctionBundles;
  stop: () => Promise<void>;
}

/**
 * Held on the main process's global object: every project of the run that names this set-up gets the same DynamoDB
 * Local and bundles (each project loads its global set-up module on its own), started by the first and undone by
 * the last one's teardown.
 */
const run = globalThis as typeof globalThis & {
  testBackends?: { shared: Promise<Shared>; users: number };
};

async function start(): Promise<Shared> {
  const [dynamo, platformsDynamo, bundles] = await Promise.all([
    startDynamoLocal(),
    startDynamoLocal({ databasePerKey: true }),
    temporaryFunctionBundles(),
  ]);
  return {
    dynamoEndpoint: dynamo.endpoint,
    platformsDynamoEndpoint: platformsDynamo.endpoint,
    functionBundles: bundles.bundles,
    stop: async () => {
      await Promise.all([dynamo.stop(), platformsDynamo.stop()]);
      bundles.remove();
    },
  };
}

/**
 * Starts the test run's two in-memory DynamoDB Locals (the in-process suites' one, the local platforms' one) and
 * builds the local function bundles; undoes all three.
 */
export default async function setup(project: TestProject) {
  run.testBackends ??= { shared: start(), users: 0 };
  const backends = run.testBackends;
  backends.users++;
  const shared = await backends.shared;
  project.provide('dynamoEndpoint', shared.dynamoEndpoint);
  project.provide('platformsDynamoEndpoint', shared.platformsDynamoEndpoint);
  project.provide('functionBundles', shared.functionBundles);
  return async () => {
    if (--backends.users > 0) return;
    run.testBackends = undefined;
    await shared.stop();
  };
}
