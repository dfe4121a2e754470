/**
 * The emulators the in-process benchmarks run on: DynamoDB Local (one JVM, in memory, for the whole bench run)
 * and fauxqs, with the platform's tables and queues created under a name prefix from the shared definitions.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ensureQueues, ensureTables } from '../infra/local/provision.js';

const LOCAL = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};

/** The variables a service function would get, on fresh tables and queues named `<prefix>...`. */
export async function benchVariables(
  dynamoEndpoint: string,
  sqsEndpoint: string,
  prefix: string,
): Promise<NodeJS.ProcessEnv> {
  const dynamo = new DynamoDBClient({ ...LOCAL, endpoint: dynamoEndpoint });
  const sqs = new SQSClient({ ...LOCAL, endpoint: sqsEndpoint });
  try {
    const tables = await ensureTables(dynamo, prefix);
    const queues = await ensureQueues(sqs, prefix);
    return {
      // `local` lets webhook configs name the http receiver on 127.0.0.1 that the benchmark runs.
      STAGE: 'local',
      PUBLIC_BASE_URL: 'http://bench.local',
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      SQS_ENDPOINT: sqsEndpoint,
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'silent',
      ...tables,
      ...queues,
    };
  } finally {
    dynamo.destroy();
    sqs.destroy();
  }
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ ...LOCAL, endpoint });
}

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ ...LOCAL, endpoint });
}
