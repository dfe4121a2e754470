import * as v from 'valibot';
import { SCOPE_TOKEN } from '../../tokens/scopes.js';
import { boundedText, metadataMap, nonEmptyText } from '../../validation/common.js';
import { type ClientInput, lifetimeSchema, type SecretInput } from '../domain/client.js';

/**
 * The auth service's request schemas (docs/architecture.md, "The rules, checked": request schemas live in the
 * routes). Each produces the typed value the domain takes; unknown fields are refused.
 */

/**
 * Any OAuth scope, as the reference accepts (a client may carry scopes for its own resource servers); the services
 * keep checking their own (`<service>:read|write`, lib/tokens/scopes.ts), which are the only ones they honour.
 */
const MAX_SCOPES = 100;
const scopesSchema = v.pipe(
  v.array(
    v.pipe(
      v.string('must be an array of scopes'),
      v.regex(SCOPE_TOKEN, 'must be OAuth scope tokens (printable ASCII without space, " or \\)'),
      v.maxLength(128, 'must be scopes of at most 128 characters'),
    ),
    'must be an array of scopes',
  ),
  v.maxLength(MAX_SCOPES, `must hold at most ${MAX_SCOPES} scopes`),
  v.check((s) => new Set(s).size === s.length, 'must not repeat a scope'),
);

/** Body of POST and PUT /clients: PUT replaces every field, so absent optional fields are cleared. */
export const clientInputSchema = v.strictObject({
  name: nonEmptyText(255),
  description: v.optional(boundedText(1000)),
  scopes: v.optional(scopesSchema),
  metadata: v.optional(metadataMap),
  accessTokenLifetime: v.optional(lifetimeSchema),
}) satisfies v.GenericSchema<unknown, ClientInput>;

export const secretInputSchema = v.strictObject({
  name: nonEmptyText(255),
  metadata: v.optional(metadataMap),
}) satisfies v.GenericSchema<unknown, SecretInput>;
