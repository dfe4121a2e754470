import type { Context } from 'hono';
import type { HonoTypes } from '../../http/types.js';
import { query } from '../../openapi/describe.js';
import { type SchemaReads, writeSchema } from '../commands/schema-write.js';
import type { LedgerRecord } from '../domain/change.js';
import type { StoredSchema } from '../domain/schema/schema-data.js';
import { applyTransactionSchema } from '../domain/schema/transaction-schema.js';

/** The `schemaVersion` query parameter of v2 writes (v2.4). */
export const SCHEMA_VERSION_PARAMETER = query(
  'schemaVersion',
  'The schema version the write follows: required once the ledger has a schema (400 `SCHEMA_NOT_SPECIFIED`), 404 when the ledger has no such version.',
);

/** v1 writes take the same parameter (the reference's v1 has none, so there a ledger with schemas refuses them). */
export const V1_SCHEMA_VERSION_PARAMETER = query(
  'schemaVersion',
  'The schema version the write follows (an extension of v1): required once the ledger has a schema (400 `SCHEMA_NOT_SPECIFIED`).',
);

/** The schema version a write names in its query (commands/schema-write.ts), checked. */
export const requestSchema = (
  c: Context<HonoTypes>,
  schemas: SchemaReads,
  ledger: LedgerRecord,
): Promise<StoredSchema | undefined> => writeSchema(schemas, ledger, c.req.query('schemaVersion'));

/** The schema version a write's options carry (its version and chart), when the request names one. */
export const writeSchemaOption = (schema: StoredSchema | undefined) =>
  schema ? { schema: { version: schema.version, chart: schema.chart } } : {};

/** The schema version a revert records (a chart has nothing to rule on in a revert). */
export const schemaVersionOption = (schema: StoredSchema | undefined) =>
  schema ? { schemaVersion: schema.version } : {};

/** A create-transaction body under the schema version the request names: its template resolved, its chart kept. */
export async function createUnderSchema<T extends Parameters<typeof applyTransactionSchema>[0]>(
  c: Context<HonoTypes>,
  schemas: SchemaReads,
  ledger: LedgerRecord,
  input: T,
) {
  return applyTransactionSchema(input, await requestSchema(c, schemas, ledger));
}
