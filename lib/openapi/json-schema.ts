import type { ConversionConfig, OverrideSchemaContext } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { keyedRecordParts } from '../validation/record.js';
import type { JsonSchema } from './describe.js';

/** Named schemas of a document: each becomes `#/components/schemas/<name>`, referenced wherever it is used. */
export type NamedSchemas = Record<string, GenericSchema>;

export interface SchemaConverter {
  /** A schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), named schemas as `$ref`s. */
  convert(schema: GenericSchema): JsonSchema;
  /** The named schemas themselves, for `components.schemas`. */
  components(): Record<string, JsonSchema>;
}

const COMPONENTS = '#/components/schemas/';

/**
 * valibot → JSON Schema with `@valibot/to-json-schema` (loaded on first use: a function that never serves its
 * document never evaluates it). Request schemas are converted as the caller sends them (`typeMode: 'input'`:
 * up to the first transform). What the converter cannot see is filled in here: a `bigint` is a JSON integer
 * (amounts are read exactly), and a `keyedRecord` (lib/validation/record.ts) is an object whose keys and
 * values follow its own schemas.
 */
export async function schemaConverter(named: NamedSchemas): Promise<SchemaConverter> {
  const { toJsonSchema, toJsonSchemaDefs } = await import('@valibot/to-json-schema');
  const config: ConversionConfig = {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
    definitions: named,
    overrideRef: ({ referenceId }) => `${COMPONENTS}${referenceId}`,
    overrideSchema: (context) => override(context, (s) => plain(toJsonSchema(s, config))),
  };
  return {
    convert: (schema) => plain(toJsonSchema(schema, config)),
    components: () => {
      const { definitions: _, ...withoutDefinitions } = config;
      const defs = toJsonSchemaDefs(named, {
        ...withoutDefinitions,
        overrideSchema: (context) => override(context, (s) => plain(toJsonSchema(s, config))),
      });
      return Object.fromEntries(
        Object.entries(defs).map(([name, schema]) => [name, plain(schema)]),
      );
    },
  };
}

function override(
  { valibotSchema }: OverrideSchemaContext,
  convert: (schema: GenericSchema) => JsonSchema,
): JsonSchema | undefined {
  if (valibotSchema.type === 'bigint') return { type: 'integer' };
  const parts = keyedRecordParts(valibotSchema);
  if (parts) {
    const keys = convert(parts.key);
    return {
      type: 'object',
      ...(Object.keys(keys).length > 1 || keys.type !== 'string' ? { propertyNames: keys } : {}),
      additionalProperties: convert(parts.value),
    };
  }
  return undefined;
}

/** Without `$schema` and `$defs`: the document declares the dialect once and holds the definitions itself. */
function plain(schema: object): JsonSchema {
  const { $schema: _, $defs: __, ...rest } = schema as JsonSchema;
  return rest;
}
