import type { Context } from 'hono';
import * as v from 'valibot';
import { ValidationError } from '../errors/index.js';
import { validate } from '../validation/validate.js';

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;

/**
 * Reads a JSON request body and validates it. Wrong content type, malformed JSON and schema failures all
 * become 400 VALIDATION naming what was wrong. `optional` accepts an empty body as `undefined`.
 */
export async function readJsonBody<TSchema extends v.GenericSchema>(
  c: Context,
  schema: TSchema,
  options: { optional?: boolean; parse?: (text: string) => unknown } = {},
): Promise<v.InferOutput<TSchema>> {
  const text = await c.req.text();
  if (text.trim() === '' && options.optional) return validate(schema, undefined, 'body');
  const contentType = c.req.header('content-type') ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new ValidationError('content-type must be application/json');
  }
  let parsed: unknown;
  try {
    parsed = (options.parse ?? JSON.parse)(text);
  } catch {
    throw new ValidationError('body is not valid JSON');
  }
  return validate(schema, parsed, 'body');
}
