// The pipelines Lambda (exporters): fed by every ledger table's stream (which only wakes pipelines) and by the
// pipeline-wakes queue (each message drains one pipeline), both with partial batch responses.
import type { DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { platformConfigFromVariables } from '../lib/config/env.js';
import { pipelineLambdaDeps } from '../lib/exporters/worker/lambda-deps.js';
import {
  handlePipelineEvent,
  type PipelineEventRecord,
} from '../lib/exporters/worker/pipeline-lambda.js';
import { withObservability } from '../lib/observability/lambda-handler.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const deps = pipelineLambdaDeps(platformConfigFromVariables());

export const handler = withObservability(
  async (event: DynamoDBStreamEvent | SQSEvent): Promise<SQSBatchResponse> =>
    handlePipelineEvent(event.Records as PipelineEventRecord[], deps),
);
