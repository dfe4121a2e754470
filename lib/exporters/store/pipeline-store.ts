import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { classifyWriteFailure, isConditionFailure } from '../../dynamo/errors.js';
import { commitUnlessRaced, retryRaces } from '../../dynamo/optimistic.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { Pipeline } from '../domain/pipeline.js';
import { exportKeys, PIPELINE_PREFIX, pipelinesList } from './keys.js';

/** A pipeline as read, with the version its next change is conditional on. */
export interface StoredPipeline {
  pipeline: Pipeline;
  version: number;
}

export type CreateOutcome = 'created' | 'exists' | 'no-exporter';

/**
 * The pipelines of one environment. A change by the API (start, stop, reset) is conditional on the version read;
 * a worker's cursor move is conditional on the cursor and epoch it read, so two workers never both move it and a
 * reset is never undone by a batch read before it.
 */
export class PipelineStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly environment: string,
  ) {}

  /** Stores a new pipeline unless its ledger already has one for this exporter, or the exporter is gone. */
  async create(pipeline: Pipeline): Promise<CreateOutcome> {
    const { environment: env, table } = this;
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: this.item(pipeline, 1),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: table,
                Item: {
                  ...exportKeys.usage(env, pipeline.exporterId, pipeline.ledger),
                  ledger: pipeline.ledger,
                  pipelineId: pipeline.id,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              ConditionCheck: {
                TableName: table,
                Key: exportKeys.exporter(env, pipeline.exporterId),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
          ],
        }),
      );
      return 'created';
    } catch (err) {
      const failure = classifyWriteFailure(err);
      if (failure.kind !== 'condition') throw err;
      return failure.index === 2 ? 'no-exporter' : 'exists';
    }
  }

  async get(ledger: string, id: string): Promise<StoredPipeline | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: exportKeys.pipeline(this.environment, ledger, id),
        ConsistentRead: true,
      }),
    );
    return Item ? storedOf(Item) : undefined;
  }

  list(ledger: string, query: ListQuery): Promise<Page<Pipeline>> {
    const partition = exportKeys.pipelinesPartition(this.environment, ledger);
    requireCursorPartition(query, 'pk', partition);
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :x)',
          ExpressionAttributeValues: { ':p': partition, ':x': PIPELINE_PREFIX },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: pipelinesList(ledger),
        ascending: true,
      },
      query,
      (item) => storedOf(item).pipeline,
    );
  }

  /**
   * Changes pipeline `id` of `ledger` by `decide` (which may throw to refuse), again after a lost race; undefined
   * when there is no such pipeline.
   */
  change(
    ledger: string,
    id: string,
    decide: (current: Pipeline) => Pipeline,
  ): Promise<Pipeline | undefined> {
    return retryRaces(
      async () => {
        const current = await this.get(ledger, id);
        if (!current) return { done: true, value: undefined };
        const next = decide(current.pipeline);
        const put = {
          Put: {
            TableName: this.table,
            Item: this.item(next, current.version + 1),
            ConditionExpression: '#v = :v',
            ExpressionAttributeNames: { '#v': 'version' },
            ExpressionAttributeValues: { ':v': current.version },
          },
        };
        return (await commitUnlessRaced(this.doc, [put]))
          ? { done: true, value: next }
          : { done: false };
      },
      {
        maxAttempts: 10,
        baseDelayMs: 10,
        maxDelayMs: 200,
        busy: 'the pipeline is being changed concurrently; retry shortly',
      },
    );
  }

  /**
   * Moves the cursor of `read` to `lastLogId` and clears its failure, if nobody moved or reset it since it was
   * read; false otherwise (another worker exported the same batch, or a reset came first).
   */
  advance(read: Pipeline, lastLogId: number): Promise<boolean> {
    return this.conditionalUpdate(
      read,
      'SET #last = :to, #failures = :zero, #v = #v + :one REMOVE #error, #retry',
      { ':to': lastLogId, ':zero': 0 },
    );
  }

  /** Records a failed batch of `read` (its error and when to try again), unless the pipeline moved on since. */
  recordFailure(read: Pipeline, error: string, retryAtMs: number): Promise<boolean> {
    return this.conditionalUpdate(
      read,
      'SET #error = :error, #failures = :failures, #retry = :retry, #v = #v + :one',
      { ':error': error, ':failures': read.failures + 1, ':retry': retryAtMs },
    );
  }

  /** Deletes a pipeline and its use of the exporter; false when there is no such pipeline. */
  async delete(ledger: string, id: string): Promise<boolean> {
    const current = await this.get(ledger, id);
    if (!current) return false;
    const { pipeline } = current;
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table,
                Key: exportKeys.pipeline(this.environment, ledger, id),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            {
              Delete: {
                TableName: this.table,
                Key: exportKeys.usage(this.environment, pipeline.exporterId, ledger),
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  private async conditionalUpdate(
    read: Pipeline,
    update: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    const cursorUnchanged =
      read.lastLogId === undefined ? 'attribute_not_exists(#last)' : '#last = :from';
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: exportKeys.pipeline(this.environment, read.ledger, read.id),
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(pk) AND #epoch = :epoch AND ${cursorUnchanged}`,
          ExpressionAttributeNames: UPDATE_NAMES,
          ExpressionAttributeValues: {
            ...values,
            ':one': 1,
            ':epoch': read.epoch,
            ...(read.lastLogId === undefined ? {} : { ':from': read.lastLogId }),
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  private item(p: Pipeline, version: number): Record<string, unknown> {
    return {
      ...exportKeys.pipeline(this.environment, p.ledger, p.id),
      id: p.id,
      ledger: p.ledger,
      exporterId: p.exporterId,
      createdAt: p.createdAt,
      enabled: p.enabled,
      failures: p.failures,
      epoch: p.epoch,
      version,
      ...(p.lastLogId !== undefined ? { lastLogId: p.lastLogId } : {}),
      ...(p.error !== undefined ? { error: p.error } : {}),
      ...(p.retryAtMs !== undefined ? { retryAtMs: p.retryAtMs } : {}),
    };
  }
}

const UPDATE_NAMES = {
  '#error': 'error',
  '#last': 'lastLogId',
  '#failures': 'failures',
  '#retry': 'retryAtMs',
  '#epoch': 'epoch',
  '#v': 'version',
};

function storedOf(item: Record<string, unknown>): StoredPipeline {
  const pipeline: Pipeline = {
    id: String(item.id),
    ledger: String(item.ledger),
    exporterId: String(item.exporterId),
    createdAt: String(item.createdAt),
    enabled: item.enabled === true,
    failures: Number(item.failures ?? 0),
    epoch: Number(item.epoch ?? 0),
  };
  if (item.lastLogId !== undefined) pipeline.lastLogId = Number(item.lastLogId);
  if (item.error !== undefined) pipeline.error = String(item.error);
  if (item.retryAtMs !== undefined) pipeline.retryAtMs = Number(item.retryAtMs);
  return { pipeline, version: Number(item.version) };
}
