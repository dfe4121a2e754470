import { parse, stringify } from 'lossless-json';

/**
 * JSON with exact big integers (docs/api.md §1): integer literals parse to `bigint`, never through a JS `number`;
 * other numbers (fractions, exponents) parse to `number` so validation can name them. Out, `bigint` values are
 * written as bare JSON numbers, or as strings when the caller asked with `Formance-Bigint-As-String`.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, (literal) =>
    /^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal),
  );
}

export function stringifyJson(value: unknown, options: { bigintAsString?: boolean } = {}): string {
  const replacer = options.bigintAsString
    ? (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)
    : undefined;
  const text = stringify(value, replacer);
  if (text === undefined) throw new Error('value cannot be serialised to JSON');
  return text;
}

/** The request header through which a caller asks for big integers as strings. */
export function wantsBigintAsString(header: string | undefined): boolean {
  return header !== undefined && ['true', 'yes', 'y', '1'].includes(header.trim().toLowerCase());
}
