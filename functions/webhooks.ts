import { handle } from 'hono/aws-lambda';
import { createRuntime } from '../lib/platform/runtime.js';
import { createWebhooksApp } from '../lib/webhooks/app.js';

export const handler = handle(createWebhooksApp(createRuntime(process.env)));
