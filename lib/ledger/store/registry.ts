import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { boundedQueryPage } from '../../dynamo/bounded-page.js';
import { isConditionFailure } from '../../dynamo/errors.js';
import { forgedCursor, queryPage } from '../../dynamo/paginate.js';
import { LedgerAlreadyExistsError } from '../../errors/index.js';
import { decodeCursor, type ListQuery, type Page } from '../../pagination/cursor.js';
import type { LedgerRecord } from '../domain/change.js';
import { FEATURES, type FeatureSet } from '../domain/features.js';
import { type LedgerFilter, ledgerMatches } from '../domain/ledger-filter.js';
import type { BucketTables } from './bucket-tables.js';
import {
  DEFAULT_TRANSACTION_KEYS,
  type LedgerRef,
  ledgerKeys,
  registryKeys,
  type TransactionKeyLayout,
} from './keys.js';

export type { LedgerRecord } from '../domain/change.js';

/** Ledgers a filtered list reads for one page at most. */
const LIST_READ_BUDGET = 1000;

/**
 * Every ledger, whatever its bucket, is registered in the default ledger table: one item per ledger (listed
 * by id through `gsi1`) and one membership item per bucket (listed by the table's key). Creating a ledger also
 * writes its HEAD item in its bucket's table, in the same transaction. All of it is per environment (its keys
 * start `E#<environment>#`): names, ids (from 1 in each environment), lists and bucket memberships.
 */
export class LedgerRegistry {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tables: BucketTables,
    /** How ledgers created here key their transactions (recorded on each, so changing it moves none). */
    private readonly transactionKeys: TransactionKeyLayout = DEFAULT_TRANSACTION_KEYS,
  ) {}

  private get table() {
    return this.tables.defaultTable;
  }

  async create(input: Omit<LedgerRecord, 'id'>): Promise<LedgerRecord> {
    // Ids come from the environment's counter: increasing, and a lost creation race may leave a gap (ids need
    // not be gapless).
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: registryKeys.sequence(input.environment),
        UpdateExpression: 'ADD #last :one',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const record: LedgerRecord = {
      ...input,
      id: Number(Attributes!.last),
      transactionKeys: input.transactionKeys ?? this.transactionKeys,
      schemas: false,
    };
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: {
                  ...registryKeys.ledger(record),
                  gsi1pk: registryKeys.listPartition(record.environment),
                  gsi1sk: registryKeys.listSort(record.id),
                  ...record,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.table,
                Item: {
                  ...registryKeys.bucketMember(record.environment, record.bucket, record.id),
                  name: record.name,
                },
              },
            },
            {
              Put: {
                TableName: this.tables.tableFor(record.bucket),
                Item: {
                  ...ledgerKeys.head(record),
                  lastTxId: 0,
                  lastLogId: 0,
                  lastHash: '',
                  accounts: 0,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    } catch (err) {
      if (isConditionFailure(err))
        throw new LedgerAlreadyExistsError(`ledger "${record.name}" already exists`);
      throw err;
    }
    return record;
  }

  async get(ledger: LedgerRef): Promise<LedgerRecord | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: registryKeys.ledger(ledger),
        ConsistentRead: true,
      }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  /**
   * The environment's ledgers by id. A `filter` (the list's `query`) is evaluated on the listing's items, at most
   * LIST_READ_BUDGET read per page (a page may hold fewer ledgers while `hasMore`); `filters` are recorded in the
   * cursors.
   */
  async list(
    environment: string,
    query: ListQuery,
    bucket: string | undefined,
    filter?: LedgerFilter,
    filters: Record<string, string> = {},
    includeDeleted = false,
  ): Promise<Page<LedgerRecord>> {
    // Every ledger of the environment, by id (gsi1).
    const partition = registryKeys.listPartition(environment);
    const byId = {
      input: {
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': partition },
      },
      keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
      list: 'ledger.ledgers',
      ascending: true,
    };
    const shown = (ledger: LedgerRecord) => includeDeleted || ledger.deletedAt === undefined;
    if (filter || bucket === undefined) {
      // A cursor is not signed: its key must be in this environment's list (another's is a forged cursor).
      if (query.cursor && query.cursor.k.gsi1pk !== partition) throw forgedCursor();
      return boundedQueryPage(
        this.doc,
        {
          ...byId,
          filters,
          readBudget: LIST_READ_BUDGET,
          keep: (item) => {
            const ledger = toRecord(item);
            return (
              shown(ledger) &&
              (bucket === undefined || ledger.bucket === bucket) &&
              (!filter || ledgerMatches(filter, ledger))
            );
          },
        },
        query,
        toRecord,
      );
    }
    const members = await this.bucketMembers(environment, query, bucket);
    const items = await batchGetInOrder(
      this.doc,
      this.table,
      members.data.map((name) => registryKeys.ledger({ environment, name })),
    );
    // A deleted bucket's page holds none of its ledgers unless asked for (its cursor still moves on).
    return {
      ...members,
      data: items
        .filter((i): i is Record<string, unknown> => i !== undefined)
        .map(toRecord)
        .filter(shown),
    };
  }

  private bucketMembers(
    environment: string,
    query: ListQuery,
    bucket: string,
  ): Promise<Page<string>> {
    const partition = registryKeys.bucketPartition(environment, bucket);
    if (query.cursor && query.cursor.k.pk !== partition) throw forgedCursor();
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': partition },
        },
        keyAttributes: ['pk', 'sk'],
        list: 'ledger.ledgers',
        ascending: true,
        filters: { bucket },
      },
      query,
      (item) => String(item.name),
    );
  }

  /**
   * Deletes (`deletedAt` an instant) or restores (undefined) every ledger of a bucket in one environment, as the
   * reference's bucket deletion: nothing is erased, the ledgers are not found until restored. A bucket is shared
   * storage (a table); its membership is per environment, so another environment's ledgers in it are untouched.
   * Answers how many ledgers it marked; 0: the bucket holds none of the environment's. Idempotent, ledger by
   * ledger (a failure midway is finished by a retry).
   */
  async markBucket(
    environment: string,
    bucket: string,
    deletedAt: string | undefined,
  ): Promise<number> {
    let marked = 0;
    let cursor: ListQuery['cursor'];
    do {
      const page = await this.bucketMembers(
        environment,
        { pageSize: 100, ...(cursor ? { cursor } : {}) },
        bucket,
      );
      for (const name of page.data) {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: registryKeys.ledger({ environment, name }),
            ...(deletedAt !== undefined
              ? {
                  UpdateExpression: 'SET deletedAt = if_not_exists(deletedAt, :at)',
                  ExpressionAttributeValues: { ':at': deletedAt },
                }
              : { UpdateExpression: 'REMOVE deletedAt' }),
            ConditionExpression: 'attribute_exists(pk)',
          }),
        );
        marked++;
      }
      cursor = page.next ? decodeCursor(page.next, 'ledger.ledgers') : undefined;
    } while (cursor);
    return marked;
  }

  /** Merges keys into the ledger's metadata. */
  async saveMetadata(ledger: LedgerRef, metadata: Record<string, string>): Promise<void> {
    const entries = Object.entries(metadata);
    if (entries.length === 0) return;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: registryKeys.ledger(ledger),
        UpdateExpression: `SET ${entries.map((_, i) => `metadata.#k${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#k${i}`, k])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  }

  async deleteMetadata(ledger: LedgerRef, key: string): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: registryKeys.ledger(ledger),
        UpdateExpression: 'REMOVE metadata.#k',
        ExpressionAttributeNames: { '#k': key },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  }
}

function toRecord(item: Record<string, unknown>): LedgerRecord {
  return {
    environment: String(item.environment),
    id: Number(item.id),
    name: String(item.name),
    bucket: String(item.bucket),
    metadata: (item.metadata ?? {}) as Record<string, string>,
    // DynamoDB maps have no order: show the features in the feature table's order.
    features: Object.fromEntries(
      Object.keys(FEATURES).map((name) => [
        name,
        (item.features as FeatureSet)[name as keyof FeatureSet],
      ]),
    ) as FeatureSet,
    addedAt: String(item.addedAt),
    ...(typeof item.deletedAt === 'string' ? { deletedAt: item.deletedAt } : {}),
    ...layoutOf(item.transactionKeys),
    ...(typeof item.schemas === 'boolean' ? { schemas: item.schemas } : {}),
  };
}

/** The recorded layout, its numbers read back as numbers whatever the client made of them (bigint here). */
function layoutOf(value: unknown): { transactionKeys?: TransactionKeyLayout } {
  if (typeof value !== 'object' || value === null) return {};
  const { blockIds, timeShards } = value as Record<string, unknown>;
  return { transactionKeys: { blockIds: Number(blockIds), timeShards: Number(timeShards) } };
}
