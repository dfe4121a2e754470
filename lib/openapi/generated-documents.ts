import { appDocument } from './document.js';
import type { DocumentSource } from './document-source.js';
import { PLATFORM_VERSION } from './version.js';

/**
 * A service's document generated from its app's routes and valibot schemas, in process: the local platform,
 * the tests, and the bundling step that writes the functions' prebuilt documents. Never imported by a Lambda
 * entry (the generator and `@valibot/to-json-schema` stay out of the bundles: test/infra/bundle-contents.test.ts).
 */
export const generatedDocuments: DocumentSource = (spec, app) =>
  appDocument(app, { ...spec, version: PLATFORM_VERSION });
