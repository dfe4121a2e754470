import type { OpenApiDocument } from './document.js';

/** Where the token endpoint is, relative to the platform's base URL (`withBaseUrl` makes it absolute). */
export const TOKEN_PATH = '/api/auth/oauth/token';

/** The OAuth 2.0 scheme's name, the same in every document, so documents merge. */
export const OAUTH2 = 'oauth2';

/**
 * The document as served: the platform's own origin as its server, and the token endpoint there. Documents
 * are generated without it (in AWS they are generated when the functions are bundled, long before the API has
 * a URL). Kept apart from the generator: the functions serve prebuilt documents through this alone.
 */
export function withBaseUrl(document: OpenApiDocument, baseUrl: string): OpenApiDocument {
  const copy = structuredClone(document);
  copy.servers = [{ url: baseUrl, description: 'This platform' }];
  const flow = copy.components?.securitySchemes?.[OAUTH2]?.flows?.clientCredentials;
  if (flow) flow.tokenUrl = `${baseUrl}${TOKEN_PATH}`;
  return copy;
}
