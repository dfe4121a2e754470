import { NotFoundError, SchemaNotSpecifiedError } from '../../errors/index.js';
import type { LedgerRecord } from '../domain/change.js';
import type { StoredSchema } from '../domain/schema/schema-data.js';

/** What a write needs to know of a ledger's schema versions (store/schema-store.ts). */
export interface SchemaReads {
  get(ledger: LedgerRecord, version: string): Promise<StoredSchema | undefined>;
  /** Whether the ledger has any schema version (versions are never removed). */
  hasSchemas(ledger: LedgerRecord): Promise<boolean>;
  latestVersion(ledger: LedgerRecord): Promise<string | undefined>;
}

const VERSION = /^[0-9A-Za-z._-]{1,64}$/;

/**
 * The schema version a write names in `schemaVersion`, as the reference rules: a version the ledger lacks is a 404
 * naming its latest one; a ledger that has schemas requires every write to name one (400 SCHEMA_NOT_SPECIFIED);
 * a ledger without schemas takes writes that name none.
 */
export async function writeSchema(
  schemas: SchemaReads,
  ledger: LedgerRecord,
  version: string | undefined,
): Promise<StoredSchema | undefined> {
  if (version === undefined || version === '') {
    if (!(await schemas.hasSchemas(ledger))) return undefined;
    throw new SchemaNotSpecifiedError(
      `a schema version must be specified for this ledger, latest available version is ${await schemas.latestVersion(ledger)}`,
    );
  }
  const schema = VERSION.test(version) ? await schemas.get(ledger, version) : undefined;
  if (schema) return schema;
  const latest = await schemas.latestVersion(ledger);
  throw new NotFoundError(
    latest === undefined
      ? `schema version \`${version.slice(0, 64)}\` not found, this ledger doesn't have a schema`
      : `schema version \`${version.slice(0, 64)}\` not found, latest available version is \`${latest}\``,
  );
}
