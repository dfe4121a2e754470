import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { LedgerRecord } from '../domain/change.js';
import type { SchemaInput, StoredSchema } from '../domain/schema/schema-data.js';
import { ledgerKeys } from './keys.js';

export const schemaListName = (ledger: string) => `ledger.schemas.${ledger}`;

/**
 * A ledger's schema versions (docs/data-model.md): one item per version, written once (a second insert of a
 * version is refused by the condition, so a version never changes), listed by creation through gsi1. The
 * schema's JSON is kept as a string: chart keys (`$id`, `.metadata`) and template bodies stay exactly as given.
 */
export class SchemaStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /** Stores a new version; false when the version exists already (nothing is written then). */
  async insert(
    ledger: LedgerRecord,
    version: string,
    input: SchemaInput,
    createdAt: string,
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableFor(ledger.bucket),
          Item: {
            ...ledgerKeys.schema(ledger, version),
            gsi1pk: ledgerKeys.schemasByCreation(ledger),
            gsi1sk: `${createdAt}#${version}`,
            version,
            createdAt,
            schema: JSON.stringify(input),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if ((err as Error).name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }

  async get(ledger: LedgerRecord, version: string): Promise<StoredSchema | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableFor(ledger.bucket),
        Key: ledgerKeys.schema(ledger, version),
        ConsistentRead: true,
      }),
    );
    return Item ? toStoredSchema(Item) : undefined;
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

function toStoredSchema(item: Record<string, unknown>): StoredSchema {
  return {
    ...(JSON.parse(String(item.schema)) as SchemaInput),
    version: String(item.version),
    createdAt: String(item.createdAt),
  };
}
