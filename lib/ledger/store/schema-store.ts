import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { classifyWriteFailure } from '../../dynamo/errors.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { formatInstant, type Instant, sortableInstant } from '../../time/instant.js';
import type { LedgerRecord } from '../domain/change.js';
import type { SchemaInput, StoredSchema } from '../domain/schema/schema-data.js';
import { ledgerKeys, registryKeys } from './keys.js';

export const schemaListName = (ledger: string) => `ledger.schemas.${ledger}`;

/**
 * A ledger's schema versions (docs/data-model.md): one item per version, written once (a second insert of a
 * version is refused by the condition, so a version never changes), listed by creation through gsi1. The
 * schema's JSON is kept as a string: chart keys (`$id`, `.metadata`) and template bodies stay exactly as given.
 */
export class SchemaStore {
  /** Versions read in this container: a version never changes, so it is read once (bounded). */
  private readonly versions = new Map<string, StoredSchema>();
  /** Ledgers known to have schemas (they never lose them), and when a "none" answer was read. */
  private readonly withSchemas = new Set<string>();
  private readonly noneAt = new Map<string, number>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
    /** Where the ledgers' records are (registry.ts): the first version marks the ledger's. */
    private readonly registryTable: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stores a new version; false when the version exists already (nothing is written then). The ledger's record
   * says it has schemas from the same transaction on, so a container that has its record knows without a query.
   */
  async insert(
    ledger: LedgerRecord,
    version: string,
    input: SchemaInput,
    createdAt: Instant,
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableFor(ledger.bucket),
                Item: {
                  ...ledgerKeys.schema(ledger, version),
                  gsi1pk: ledgerKeys.schemasByCreation(ledger),
                  // Fixed width: the API's form drops trailing zeros, and "…:59.1Z" sorts after "…:59.12Z".
                  gsi1sk: `${sortableInstant(createdAt)}#${version}`,
                  version,
                  createdAt: formatInstant(createdAt),
                  schema: JSON.stringify(input),
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.registryTable,
                Key: registryKeys.ledger(ledger),
                UpdateExpression: 'SET schemas = :yes',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':yes': true },
              },
            },
          ],
        }),
      );
      this.withSchemas.add(ledgerKey(ledger));
      return true;
    } catch (err) {
      // The version's put refused by its condition: it exists (the ledger's record always does).
      const failure = classifyWriteFailure(err);
      if (failure.kind === 'condition' && failure.index === 0) return false;
      throw err;
    }
  }

  async get(ledger: LedgerRecord, version: string): Promise<StoredSchema | undefined> {
    const key = `${ledgerKey(ledger)}\u0000${version}`;
    const cached = this.versions.get(key);
    if (cached) return cached;
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableFor(ledger.bucket),
        Key: ledgerKeys.schema(ledger, version),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const schema = toStoredSchema(Item);
    if (this.versions.size >= MAX_CACHED_VERSIONS) this.versions.clear();
    this.versions.set(key, schema);
    return schema;
  }

  /**
   * Whether the ledger has a schema version: a write that names none is refused then. A "yes" holds for good (no
   * version is ever removed); a "no" is read again after NO_SCHEMA_TTL_MS, so a ledger's first schema binds the
   * writes of every container within that time (at once in the container that inserted it).
   */
  async hasSchemas(ledger: LedgerRecord): Promise<boolean> {
    const key = ledgerKey(ledger);
    if (this.withSchemas.has(key)) return true;
    // The record says so (as fresh as the container's copy of it: LEDGER_RECHECK_MS, the same bound as below).
    if (ledger.schemas === false) return false;
    if (ledger.schemas === true) {
      this.withSchemas.add(key);
      return true;
    }
    const readAt = this.noneAt.get(key);
    if (readAt !== undefined && this.now() - readAt < NO_SCHEMA_TTL_MS) return false;
    const found = (await this.latestVersion(ledger)) !== undefined;
    if (found) {
      this.withSchemas.add(key);
      this.noneAt.delete(key);
    } else {
      if (this.noneAt.size >= MAX_CACHED_VERSIONS) this.noneAt.clear();
      this.noneAt.set(key, this.now());
    }
    return found;
  }

  /** The ledger's newest version (one item of gsi1, newest first). */
  async latestVersion(ledger: LedgerRecord): Promise<string | undefined> {
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableFor(ledger.bucket),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': ledgerKeys.schemasByCreation(ledger) },
        ScanIndexForward: false,
        Limit: 1,
        ProjectionExpression: 'version',
      }),
    );
    return Items[0] ? String(Items[0].version) : undefined;
  }

  /** A page of versions by creation, newest first unless `ascending`. */
  list(ledger: LedgerRecord, query: ListQuery, ascending: boolean): Promise<Page<StoredSchema>> {
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.tableFor(ledger.bucket),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': ledgerKeys.schemasByCreation(ledger) },
        },
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        list: schemaListName(ledger.name),
        ascending,
        filters: { order: ascending ? 'asc' : 'desc' },
      },
      query,
      toStoredSchema,
    );
  }
}

const MAX_CACHED_VERSIONS = 1000;
/** How long a container trusts that a ledger has no schema before it reads again. */
const NO_SCHEMA_TTL_MS = 5000;
const ledgerKey = (ledger: LedgerRecord) =>
  `${ledger.environment}\u0000${ledger.name}\u0000${ledger.id}`;

function toStoredSchema(item: Record<string, unknown>): StoredSchema {
  return {
    ...(JSON.parse(String(item.schema)) as SchemaInput),
    version: String(item.version),
    createdAt: String(item.createdAt),
  };
}
