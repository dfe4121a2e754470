import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { isConditionFailure } from '../../dynamo/errors.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { environmentOfKey } from '../../environments/key-scope.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { TaskType } from '../domain/connectors/providers.js';
import { type Instance, instanceView, type Schedule } from '../domain/connectors/tasks.js';
import { sortableCreatedAt } from '../domain/input.js';
import { dueKeyOf } from './due-index.js';
import { instanceKey, instancePrefix, recordKey, SCHEDULE_PREFIX, scheduleKey } from './keys.js';
import type { RecordStoreOptions } from './record-store.js';

export const SCHEDULES_LIST = 'schedules';
export const INSTANCES_LIST = 'instances';

/**
 * A connector's schedules and their runs (instances), in the connector's partition. A run first claims its
 * schedule with a lease (a conditional update), so two timers — or a timer and a retried Lambda — never run one
 * schedule at once; the cursor is saved under the lease after each page, so a crashed run resumes from the last
 * page it finished.
 */
export class ScheduleStore {
  constructor(private readonly options: RecordStoreOptions) {}

  /** The items that create a connector's schedules (written with the connector). */
  createItems(schedules: readonly Schedule[]): TransactItem[] {
    return schedules.map((s) => ({
      Put: {
        TableName: this.options.table,
        Item: {
          ...scheduleKey(this.options.environment, s.connectorID, s.id),
          ...toItem(s),
          // Found by the worker on the due index when `nextRunAtMs` is past.
          dueKey: dueKeyOf(s.connectorID),
        },
      },
    }));
  }

  async get(connectorId: string, id: string): Promise<Schedule | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: scheduleKey(this.options.environment, connectorId, id),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  async list(connectorId: string, query: ListQuery): Promise<Page<Schedule>> {
    return this.page(connectorId, SCHEDULE_PREFIX, SCHEDULES_LIST, true, query, fromItem);
  }

  async instances(
    connectorId: string,
    scheduleId: string,
    query: ListQuery,
  ): Promise<Page<Instance>> {
    return this.page(
      connectorId,
      instancePrefix(scheduleId),
      INSTANCES_LIST,
      false,
      query,
      instanceOf,
    );
  }

  /**
   * Takes the lease on a due schedule until `untilMs`; false when it is not due, paused, or leased by another run.
   */
  async claim(schedule: Schedule, nowMs: number, untilMs: number, runId: string): Promise<boolean> {
    try {
      await this.options.doc.send(
        new UpdateCommand({
          TableName: this.options.table,
          Key: scheduleKey(this.options.environment, schedule.connectorID, schedule.id),
          UpdateExpression: 'SET leaseUntil = :until, leaseRun = :run',
          ConditionExpression:
            'attribute_exists(pk) AND nextRunAtMs <= :now AND attribute_not_exists(pausedAt) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
          ExpressionAttributeValues: { ':until': untilMs, ':run': runId, ':now': nowMs },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** Saves the cursor reached (under the run's lease): false when the lease was lost. */
  async saveState(
    schedule: Schedule,
    runId: string,
    state: Record<string, unknown>,
  ): Promise<boolean> {
    return this.underLease(schedule, runId, 'SET #state = :state', {
      ':state': stringifyJson(state),
    });
  }

  /** Ends a run: the next one is due at `nextRunAtMs`, the lease is released. */
  async release(schedule: Schedule, runId: string, nextRunAtMs: number): Promise<boolean> {
    return this.underLease(schedule, runId, 'SET nextRunAtMs = :next REMOVE leaseUntil, leaseRun', {
      ':next': nextRunAtMs,
    });
  }

  /** Starts a connector's schedules again from no cursor, due now (a reset). */
  resetItems(schedules: readonly Schedule[], nowMs: number): TransactItem[] {
    return this.createItems(schedules.map((s) => ({ ...s, state: {}, nextRunAtMs: nowMs })));
  }

  async saveInstance(instance: Instance): Promise<void> {
    const key = instanceKey(
      this.options.environment,
      instance.connectorID,
      instance.scheduleID,
      sortableCreatedAt(instance.createdAt),
      instance.id,
    );
    // A run's record is rewritten whole as it progresses (started, then ended): the last write is the state.
    await this.options.doc.send(
      new PutCommand({
        TableName: this.options.table,
        Item: { ...key, ...instanceView(instance) },
      }),
    );
  }

  private async underLease(
    schedule: Schedule,
    runId: string,
    update: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.options.doc.send(
        new UpdateCommand({
          TableName: this.options.table,
          Key: scheduleKey(this.options.environment, schedule.connectorID, schedule.id),
          UpdateExpression: update,
          ConditionExpression: 'leaseRun = :run',
          ExpressionAttributeNames: update.includes('#state') ? { '#state': 'state' } : undefined,
          ExpressionAttributeValues: { ...values, ':run': runId },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  private page<T>(
    connectorId: string,
    prefix: string,
    list: string,
    ascending: boolean,
    query: ListQuery,
    map: (item: Record<string, unknown>) => T,
  ): Promise<Page<T>> {
    const { pk } = recordKey(this.options.environment, 'CONNECTOR', connectorId);
    requireCursorPartition(query, 'pk', pk);
    return queryPage(
      this.options.doc,
      {
        input: {
          TableName: this.options.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':p': pk, ':prefix': prefix },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list,
        ascending,
        filters: { connector: connectorId, prefix },
      },
      query,
      map,
    );
  }
}

/**
 * Every schedule of every environment, with its environment: what the local timer walks (a Scan, local only: in
 * AWS each schedule is an EventBridge Scheduler schedule that names its environment, connector and task).
 */
export async function scanSchedules(
  options: Pick<RecordStoreOptions, 'doc' | 'table'>,
): Promise<Array<{ environment: string; schedule: Schedule }>> {
  const found: Array<{ environment: string; schedule: Schedule }> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await options.doc.send(
      new ScanCommand({
        TableName: options.table,
        FilterExpression: 'begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':prefix': SCHEDULE_PREFIX },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const environment = environmentOfKey(String(item.pk));
      if (environment !== undefined) found.push({ environment, schedule: fromItem(item) });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

function toItem(s: Schedule): Record<string, unknown> {
  return {
    id: s.id,
    connectorID: s.connectorID,
    taskType: s.taskType,
    createdAt: s.createdAt,
    state: stringifyJson(s.state),
    nextRunAtMs: s.nextRunAtMs,
    ...(s.pausedAt !== undefined ? { pausedAt: s.pausedAt } : {}),
  };
}

function fromItem(item: Record<string, unknown>): Schedule {
  return {
    id: String(item.id),
    connectorID: String(item.connectorID),
    taskType: item.taskType as TaskType,
    createdAt: String(item.createdAt),
    state: parseJson(String(item.state ?? '{}')) as Record<string, unknown>,
    nextRunAtMs: Number(item.nextRunAtMs),
    ...(item.pausedAt !== undefined ? { pausedAt: String(item.pausedAt) } : {}),
  };
}

function instanceOf(item: Record<string, unknown>): Instance {
  return {
    id: String(item.id),
    scheduleID: String(item.scheduleID),
    connectorID: String(item.connectorID),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    terminated: Boolean(item.terminated),
    ...(item.terminatedAt != null ? { terminatedAt: String(item.terminatedAt) } : {}),
    ...(item.error != null ? { error: String(item.error) } : {}),
  };
}
