import { handle } from 'hono/aws-lambda';
import { createAuthApp } from '../lib/auth/app.js';
import { loadAuthConfig } from '../lib/auth/static-clients.js';
import { createRuntime } from '../lib/platform/runtime.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const runtime = createRuntime(process.env);
const app = createAuthApp({ runtime, authConfig: loadAuthConfig(process.env, runtime.config.stage) });

export const handler = handle(app);
