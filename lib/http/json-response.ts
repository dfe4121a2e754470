import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { stringifyJson, wantsBigintAsString } from '../json/bigint-json.js';

/** A JSON response whose big integers stay exact (bare numbers, or strings on request). */
export function jsonResponse(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode = 200,
): Response {
  const text = stringifyJson(body, {
    bigintAsString: wantsBigintAsString(c.req.header('formance-bigint-as-string')),
  });
  return c.body(text, status, { 'content-type': 'application/json' });
}
