import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';
import {
  type FunctionBundles,
  temporaryFunctionBundles,
} from '../../infra/local/lambda/function-bundles.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    /** The ledger's function bundles, built once for every local platform the run starts. */
    functionBundles: FunctionBundles;
  }
}

interface Shared {
  dynamoEndpoint: string;
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
  const [dynamo, bundles] = await Promise.all([startDynamoLocal(), temporaryFunctionBundles()]);
  return {
    dynamoEndpoint: dynamo.endpoint,
    functionBundles: bundles.bundles,
    stop: async () => {
      await dynamo.stop();
      bundles.remove();
    },
  };
}

/** Starts one in-memory DynamoDB Local for the test run and builds the local function bundles; undoes both. */
export default async function setup(project: TestProject) {
  run.testBackends ??= { shared: start(), users: 0 };
  const backends = run.testBackends;
  backends.users++;
  const shared = await backends.shared;
  project.provide('dynamoEndpoint', shared.dynamoEndpoint);
  project.provide('functionBundles', shared.functionBundles);
  return async () => {
    if (--backends.users > 0) return;
    run.testBackends = undefined;
    await shared.stop();
  };
}
