import { handle } from 'hono/aws-lambda';
import { createPaymentsApp } from '../lib/payments/app.js';
import { createRuntime } from '../lib/platform/runtime.js';

export const handler = handle(createPaymentsApp(createRuntime(process.env)));
