import { handle } from 'hono/aws-lambda';
import { platformConfigFromEnv } from '../lib/config/env.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createRuntime } from '../lib/platform/runtime.js';
import { createWebhooksApp } from '../lib/webhooks/app.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
export const handler = withObservability(
  handle(createWebhooksApp(createRuntime(platformConfigFromEnv()))),
);
