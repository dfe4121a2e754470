import { DOCUMENT_PATH } from './serve.js';

/** Where the site serves Scalar's bundle, and the script that starts it with the configuration below. */
export const SCALAR_PATH = '/docs/scalar.js';
export const START_PATH = '/docs/start.js';

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

/** The script that starts Scalar: a file of its own, so the page's policy allows no inline script. */
export function startScript(): string {
  return `Scalar.createApiReference('#api-reference', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`;
}

/**
 * The page's content security policy: scripts, fonts and images from the platform only; calls to the platform
 * and to the document's servers (where "Test Request" sends). Scalar 1.72 shows its "Ask AI" and MCP buttons on
 * localhost whatever its configuration says, and "Ask AI" then calls Scalar's hosted service: the browser refuses
 * any such call, and the page hides the buttons. Styles may be inline: Scalar's components set them. The
 * browser reports two refusals on every load, neither a request: Scalar's theme declares its CDN fonts (never
 * used here: the page sets the machine's fonts), and a library inside it probes whether `Function` may run.
 */
export function referencePolicy(serverOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src 'self'`,
    `style-src 'self' 'unsafe-inline'`,
    `img-src 'self' data:`,
    `font-src 'self' data:`,
    `connect-src ${["'self'", ...serverOrigins].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The `/docs` page: Scalar's bundle from the platform, started by `START_PATH`. */
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
      /* Scalar's hosted services: its AI agent ("Ask AI") and MCP generator, refused by the policy anyway. */
      .scalar-mcp-layer, button.bg-sidebar-b-search.whitespace-nowrap { display: none !important; }
      body { margin: 0; }
    </style>
  </head>
  <body>
    <div id="api-reference"></div>
    <script src="${SCALAR_PATH}"></script>
    <script src="${START_PATH}"></script>
  </body>
</html>
`;
}
