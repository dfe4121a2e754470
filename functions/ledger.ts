import { handle } from 'hono/aws-lambda';
import { createLedgerApp } from '../lib/ledger/app.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createRuntime } from '../lib/platform/runtime.js';

export const handler = withObservability(
  handle(createLedgerApp(createRuntime(process.env))),
  process.env,
);
