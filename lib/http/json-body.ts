import type { Context } from 'hono';
import type * as v from 'valibot';
import { ValidationError } from '../errors/index.js';
import { assertJsonText } from '../json/json-limits.js';
import { validate } from '../validation/validate.js';

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;

/**
 * Reads a JSON request body and validates it. Wrong content type, malformed JSON and schema failures all
 * become 400 VALIDATION naming what was wrong. The body is a JSON object — valibot's objects and records take an
 * array for one (`[]` would pass as `{}`), so any other JSON value is refused first — unless `array` says it is a
 * JSON array (the schema then checks it). `optional` accepts an empty body as `undefined`; fields sent as `null`
 * are absent.
 */
export async function readJsonBody<TSchema extends v.GenericSchema>(
  c: Context,
  schema: TSchema,
  options: { optional?: boolean; array?: boolean; parse?: (text: string) => unknown } = {},
): Promise<v.InferOutput<TSchema>> {
  const text = await readBodyText(c);
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
  if (!options.array && !isJsonObject(parsed))
    throw new ValidationError('body: must be a JSON object');
  return validate(schema, withoutNullFields(parsed), 'body');
}

const isJsonObject = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Strict: a body that is not valid UTF-8 is refused, never stored with U+FFFD in place of the bad bytes. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON request body as text: invalid UTF-8 is a 400 (RFC 8259 §8.1: JSON text is UTF-8), and so is nesting
 * deeper than every route's one limit, and a lone surrogate escape (lib/json/json-limits.ts), before any parser
 * sees it. A BOM is dropped.
 */
export async function readBodyText(c: Context): Promise<string> {
  const bytes = await c.req.arrayBuffer();
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ValidationError('body is not valid UTF-8');
  }
  assertJsonText(text);
  return text;
}

/**
 * An object field sent as `null` is treated as absent, everywhere (the reference's Go SDK sends `"metadata": null`
 * whenever metadata is unset). Elements of arrays are kept as they are: a null there is a value, and is refused
 * by whatever schema reads it.
 */
export function withoutNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullFields);
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties: a hostile "__proto__" key stays a plain key, as JSON.parse made it.
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, field]) =>
      field === null ? [] : [[key, withoutNullFields(field)]],
    ),
  );
}
