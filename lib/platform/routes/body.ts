import type { Context } from 'hono';
import * as v from 'valibot';
import { readJsonBody } from '../../http/json-body.js';

/** valibot's objects take arrays for objects (`[]` would pass as `{}`): a JSON array is refused first. */
const notAnArray = v.custom<unknown>((input) => !Array.isArray(input), 'must be a JSON object');

/** A JSON object body, validated with `schema` (its describe() line shows that schema). */
export function readObjectBody<TSchema extends v.GenericSchema>(
  c: Context,
  schema: TSchema,
  options: { optional?: boolean } = {},
): Promise<v.InferOutput<TSchema>> {
  return readJsonBody(c, v.pipe(notAnArray, schema), options);
}
