// The console (README, "Console"): its page and content-hashed assets, built by `npm run console:build` when the
// function is bundled and shipped beside index.mjs (infra/stacks/bundled-files.ts), read at the first request and
// kept. Static files only: it calls nothing, and its role may write its logs and nothing else.

import { logLevelFromVariables } from '../lib/config/env.js';
import { consoleFilesLoader } from '../lib/console/files.js';
import { createConsoleSite } from '../lib/console/site.js';
import { handleHttpApi } from '../lib/http/lambda-handle.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { createLogger } from '../lib/observability/logger.js';

// Built once per container: configuration is read and validated at start-up and fails loudly.
const site = createConsoleSite(
  consoleFilesLoader(import.meta.dirname),
  createLogger(logLevelFromVariables()),
);

export const handler = withObservability(handleHttpApi(site));
