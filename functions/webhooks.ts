import { handle } from 'hono/aws-lambda';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createRuntime } from '../lib/platform/runtime.js';
import { createWebhooksApp } from '../lib/webhooks/app.js';

export const handler = withObservability(
  handle(createWebhooksApp(createRuntime(process.env))),
  process.env,
);
