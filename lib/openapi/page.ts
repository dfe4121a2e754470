import { DOCUMENT_PATH } from './serve.js';

/** Where the site serves Scalar's bundle. */
export const SCALAR_PATH = '/docs/scalar.js';

/**
 * Scalar's options for this platform (https://github.com/scalar/scalar, `ApiReferenceConfiguration`): the
 * merged document; nothing that reaches outside the platform (no default fonts, which come from Scalar's CDN;
 * no telemetry; no AI agent or MCP button, which call Scalar's services); OAuth 2.0 client credentials
 * offered first, a bearer token as the alternative; requests go to the document's server, the platform itself.
 */
export const SCALAR_CONFIGURATION = {
  url: DOCUMENT_PATH,
  slug: 'platform',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
  persistAuth: false,
  showOperationId: true,
  authentication: { preferredSecurityScheme: 'oauth2' },
} as const;

/** The `/docs` page: Scalar's bundle from the platform, started with the configuration above. */
export function referencePage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference</title>
    <style>
      /* The machine's own fonts: Scalar's stylesheets name Inter from its CDN, never used (never fetched) here. */
      html:root, html:root * {
        --scalar-font: ui-sans-serif, system-ui, sans-serif !important;
        --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, monospace !important;
      }
      body { margin: 0; }
    </style>
  </head>
  <body>
    <div id="api-reference"></div>
    <script src="${SCALAR_PATH}"></script>
    <script>
      Scalar.createApiReference('#api-reference', ${JSON.stringify(SCALAR_CONFIGURATION)});
    </script>
  </body>
</html>
`;
}
