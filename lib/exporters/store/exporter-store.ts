import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { isConditionFailure } from '../../dynamo/errors.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { Exporter } from '../domain/exporter.js';
import { EXPORTER_PREFIX, EXPORTERS_LIST, exportKeys } from './keys.js';

/** One pipeline's use of an exporter, as the exporter's partition records it. */
export interface Usage {
  ledger: string;
  pipelineId: string;
}

/** The exporters of one environment. */
export class ExporterStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly environment: string,
  ) {}

  async create(exporter: Exporter): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: this.item(exporter),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<Exporter | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: exportKeys.exporter(this.environment, id),
        ConsistentRead: true,
      }),
    );
    return Item ? exporterOf(Item) : undefined;
  }

  /** Replaces the driver and its configuration; false when there is no such exporter. */
  async replace(exporter: Exporter): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: this.item(exporter),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** Deletes the exporter itself; false when there was none. Its pipelines are the caller's to delete next. */
  async delete(id: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: exportKeys.exporter(this.environment, id),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  list(query: ListQuery): Promise<Page<Exporter>> {
    const partition = exportKeys.exportersPartition(this.environment);
    requireCursorPartition(query, 'pk', partition);
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :x)',
          ExpressionAttributeValues: { ':p': partition, ':x': EXPORTER_PREFIX },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: EXPORTERS_LIST,
        ascending: true,
      },
      query,
      exporterOf,
    );
  }

  /** The pipelines that use exporter `id`, every one (a page of usage items at a time). */
  async usages(id: string): Promise<Usage[]> {
    const found: Usage[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :u)',
          ExpressionAttributeValues: {
            ':p': exportKeys.exportersPartition(this.environment),
            ':u': exportKeys.usagePrefix(id),
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of result.Items ?? [])
        found.push({ ledger: String(item.ledger), pipelineId: String(item.pipelineId) });
      start = result.LastEvaluatedKey;
    } while (start);
    return found;
  }

  private item(exporter: Exporter): Record<string, unknown> {
    return {
      ...exportKeys.exporter(this.environment, exporter.id),
      id: exporter.id,
      createdAt: exporter.createdAt,
      driver: exporter.driver,
      // As JSON text: the configuration is the caller's document, kept exactly as checked.
      config: JSON.stringify(exporter.config),
    };
  }
}

function exporterOf(item: Record<string, unknown>): Exporter {
  return {
    id: String(item.id),
    createdAt: String(item.createdAt),
    driver: item.driver as Exporter['driver'],
    config: JSON.parse(String(item.config)) as Exporter['config'],
  };
}
