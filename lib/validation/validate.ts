import * as v from 'valibot';
import { ValidationError } from '../errors/index.js';

/** How much of one path segment (an object key, possibly a caller's metadata key) an error message repeats. */
export const MAX_PATH_SEGMENT = 64;

/** Runs a valibot schema and turns the first issue into a ValidationError that names the field. */
export function validate<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  what: string,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const segments = pathSegments(issue);
  // A strict object's unknown key: valibot says 'Invalid key: Expected never but received "x"'; the path names the
  // field, as every other message of the contract does (`body.x: unknown field`).
  const unknownKey = issue.type === 'strict_object' && issue.expected === 'never';
  const path = segments.join('.');
  const field = path ? `${what}.${path}` : what;
  throw new ValidationError(`${field}: ${unknownKey ? 'unknown field' : issue.message}`);
}

/**
 * The issue's path, one segment per key. Keys can be a caller's data (metadata keys up to a megabyte long): each
 * segment is cut to MAX_PATH_SEGMENT characters, so an error names the key without echoing all of it.
 */
function pathSegments(issue: v.BaseIssue<unknown>): string[] {
  return (issue.path ?? []).map((item) => {
    const key = String(item.key);
    return key.length > MAX_PATH_SEGMENT ? `${key.slice(0, MAX_PATH_SEGMENT)}…` : key;
  });
}
