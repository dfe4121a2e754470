import type { JsonSchema } from './describe.js';

/**
 * Properties that exclude each other in a request body, with the title of each shape: a transaction is made of
 * postings or of a Numscript script (never both: `body: send postings or a script, not both`), a pool holds a
 * list of accounts or a query. The validators take one object with both optional and refuse the mix; the
 * documents say it as the API does, one shape or the other (`oneOf`).
 */
const EXCLUSIVE: readonly Record<string, string>[] = [
  { postings: 'Postings', script: 'Numscript script' },
  { accountIDs: 'Static: its accounts', query: 'Dynamic: a query' },
];

/**
 * `schema` with every object that declares all the properties of an exclusive group rewritten as a `oneOf` of
 * that object, one per property of the group (the others left out, this one required). Nested schemas (a bulk
 * element's `data`, a batch's items) are rewritten too.
 */
export function withAlternatives(schema: JsonSchema): JsonSchema {
  const walked = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, walk(value)]),
  ) as JsonSchema;
  const properties = walked.properties as Record<string, JsonSchema> | undefined;
  if (walked.type !== 'object' || !properties) return walked;
  const group = EXCLUSIVE.find((g) => Object.keys(g).every((name) => name in properties));
  if (!group) return walked;
  // The shapes carry the object's keywords; left beside `oneOf`, `additionalProperties: false` would refuse all.
  const { type: _, properties: __, required, additionalProperties, ...rest } = walked;
  const others = Object.keys(group);
  return {
    ...rest,
    oneOf: others.map((name) => ({
      title: group[name],
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).filter(([p]) => p === name || !others.includes(p)),
      ),
      required: [name, ...((required as string[] | undefined) ?? []).filter((r) => r !== name)],
      ...(additionalProperties !== undefined ? { additionalProperties } : {}),
    })),
  };
}

function walk(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(walk);
  if (value && typeof value === 'object') return withAlternatives(value as JsonSchema);
  return value;
}
