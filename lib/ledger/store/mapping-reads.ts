import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerRecord } from '../domain/change.js';
import type { Mapping } from '../domain/mapping.js';
import { mappingKey, parseStoredMapping } from './mapping-item.js';

/** The v1 mapping as stored (its item, docs/data-model.md), for GET /<ledger>/mapping. */
export class MappingReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /** The ledger's mapping, or undefined until one is set. */
  async get(ledger: LedgerRecord): Promise<Mapping | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableFor(ledger.bucket),
        Key: mappingKey(ledger),
        ConsistentRead: true,
      }),
    );
    return Item ? parseStoredMapping(String(Item.mapping)) : undefined;
  }
}
