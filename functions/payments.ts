import { handle } from 'hono/aws-lambda';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createPaymentsApp } from '../lib/payments/app.js';
import { createRuntime } from '../lib/platform/runtime.js';

export const handler = withObservability(
  handle(createPaymentsApp(createRuntime(process.env))),
  process.env,
);
