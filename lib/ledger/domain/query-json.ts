import { ValidationError } from '../../errors/index.js';
import { parseJson } from '../../json/bigint-json.js';
import { assertJsonText } from '../../json/json-limits.js';

/** The raw filter is small; a bound keeps parsing and error messages cheap. */
export const MAX_QUERY_LENGTH = 8192;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
export const quote = (text: string) => JSON.stringify(text.slice(0, 64));

/**
 * The `query` list parameter (JSON, as the SDK sends it) reduced to its single operator: undefined when absent,
 * empty or `{}`; a 400 when it is not JSON, not an object, or holds more than one operator.
 */
export function readQueryOperator(
  raw: string | undefined,
  example: string,
): { operator: string; operand: unknown } | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.length > MAX_QUERY_LENGTH)
    throw new ValidationError(`query: must be at most ${MAX_QUERY_LENGTH} characters`);
  // The request bodies' one limit (depth, lone surrogates), before the recursive parser sees it.
  assertJsonText(raw, 'query');
  let parsed: unknown;
  try {
    // Exact: a balance bound beyond 2^53 must not be rounded.
    parsed = parseJson(raw);
  } catch {
    throw new ValidationError('query: must be valid JSON');
  }
  if (!isObject(parsed))
    throw new ValidationError(`query: must be a JSON object such as ${example}`);
  const operators = Object.keys(parsed);
  if (operators.length === 0) return undefined;
  if (operators.length > 1)
    throw new ValidationError(`query: must hold one operator, found ${operators.length}`);
  return { operator: operators[0]!, operand: parsed[operators[0]!] };
}
