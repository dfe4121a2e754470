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

/** Starts one in-memory DynamoDB Local for the test run and builds the local function bundles; undoes both. */
export default async function setup(project: TestProject) {
  const [dynamo, bundles] = await Promise.all([startDynamoLocal(), temporaryFunctionBundles()]);
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('functionBundles', bundles.bundles);
  return async () => {
    await dynamo.stop();
    bundles.remove();
  };
}
