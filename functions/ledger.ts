import { handle } from 'hono/aws-lambda';
import { platformConfigFromEnv } from '../lib/config/env.js';
import { createLedgerApp } from '../lib/ledger/app.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createRuntime } from '../lib/platform/runtime.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
export const handler = withObservability(
  handle(createLedgerApp(createRuntime(platformConfigFromEnv()))),
);
