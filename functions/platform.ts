import { assemblePlatformApp } from '../lib/assembly/platform-app.js';
import { platformConfigFromVariables } from '../lib/config/env.js';
import { handleHttpApi } from '../lib/http/lambda-handle.js';
import { withObservability } from '../lib/observability/lambda-handler.js';
import { prebuiltDocuments, SERVICE_DOCUMENTS_DIR } from '../lib/openapi/document-source.js';
import { createRuntime } from '../lib/runtime/runtime.js';

// Its OpenAPI document, generated when the function was bundled, is read from beside it (infra/openapi-assets.ts).
const documents = prebuiltDocuments(new URL(`./${SERVICE_DOCUMENTS_DIR}/`, import.meta.url));
// Built once per container: configuration is read and validated at start-up and fails loudly.
export const handler = withObservability(
  handleHttpApi(
    assemblePlatformApp({ runtime: createRuntime(platformConfigFromVariables()), documents }),
  ),
);
