import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventKind } from '../../../events/catalog.js';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { commitUnlessRaced, retryRaces } from '../../dynamo/optimistic.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { Attempt } from '../../dynamo/retry.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { outboxRow } from '../../events/outbox.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { sortableCreatedAt } from '../domain/input.js';
import { type RecordKindName, recordKey, recordsByCreation } from './keys.js';
import { MAX_SAVE_ATTEMPTS, SAVE_BACKOFF } from './payment-store.js';

/** How one kind of record is stored and which event reports its changes. */
export interface RecordKind<T extends { id: string; createdAt: string }> {
  name: RecordKindName;
  /** The list name its cursors carry. */
  list: string;
  /** The record as item attributes (everything but keys, version and updatedAt). */
  toItem(record: T): Record<string, unknown>;
  fromItem(item: Record<string, unknown>): T;
  /** Whether a save would change nothing: then nothing is written and no event is emitted. */
  same(a: T, b: T): boolean;
  /** The event of a saved version (undefined: the kind emits none). */
  savedEvent?: { type: EventKind; payload(record: T): unknown };
  /** Items written with the record when it is created (index items of values that never change). */
  createdIndexItems?(record: T, environment: string): Record<string, unknown>[];
  /**
   * Events a change emits besides `savedEvent`, from the record before and after it (an initiation's new
   * adjustments and related payments). `key` tells two events of one version apart.
   */
  changeEvents?(next: T, previous: T | undefined): ChangeEvent[];
  /** The event of a deletion. */
  deletedEvent?: { type: EventKind; payload(record: T, date: string): unknown };
}

export interface ChangeEvent {
  type: EventKind;
  payload: unknown;
  key: string;
}

export interface RecordStoreOptions {
  doc: DynamoDBDocumentClient;
  table: string;
  eventsTable: string;
  environment: string;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface Versioned<T> {
  record: T;
  version: number;
}

/**
 * One environment's records of one kind. Every change is one TransactWriteItems: the record (conditional on the
 * version read, or on not existing yet) and its event row (the outbox); a lost race is read and decided again.
 */
export class RecordStore<T extends { id: string; createdAt: string }> {
  constructor(
    private readonly kind: RecordKind<T>,
    private readonly options: RecordStoreOptions,
  ) {}

  async get(id: string): Promise<T | undefined> {
    return (await this.read(id))?.record;
  }

  /**
   * Creates or changes record `id`: `decide` gets the current record (undefined if none) and returns the new one,
   * or throws to refuse. Nothing is written when the result equals the current record.
   */
  async save(id: string, decide: (current: T | undefined) => T): Promise<T> {
    return this.retry<T>(async () => {
      const current = await this.read(id);
      const next = decide(current?.record);
      if (current && this.kind.same(current.record, next))
        return { done: true, value: current.record };
      const committed = await commitUnlessRaced(this.options.doc, this.putItems(next, current));
      return committed ? { done: true, value: next } : { done: false };
    });
  }

  /** Deletes record `id` after `check` accepted it (it throws to refuse); false when there was none. */
  async remove(id: string, check: (current: T) => void = () => {}): Promise<boolean> {
    return this.retry<boolean>(async () => {
      const current = await this.read(id);
      if (!current) return { done: true, value: false };
      check(current.record);
      const { table, environment } = this.options;
      const items: TransactItem[] = [
        {
          Delete: {
            TableName: table,
            Key: recordKey(environment, this.kind.name, id),
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
      ];
      const deleted = this.kind.deletedEvent;
      if (deleted) {
        const nowMs = this.options.now();
        const date = formatInstant(instantFromMs(nowMs));
        items.push(
          this.eventItem(deleted.type, deleted.payload(current.record, date), {
            seed: `deleted/${current.version}`,
            id,
            version: current.version,
            date,
            nowMs,
          }),
        );
      }
      const committed = await commitUnlessRaced(this.options.doc, items);
      return committed ? { done: true, value: true } : { done: false };
    });
  }

  /** The item that deletes `current` (conditional on its version), for changes spanning records. */
  deleteItems(current: Versioned<T>): TransactItem[] {
    return [
      {
        Delete: {
          TableName: this.options.table,
          Key: recordKey(this.options.environment, this.kind.name, current.record.id),
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': current.version },
        },
      },
    ];
  }

  /** Oldest first by creation (the reference lists these records in creation order). */
  async list(query: ListQuery): Promise<Page<T>> {
    const partition = recordsByCreation(this.options.environment, this.kind.name);
    requireCursorPartition(query, 'gsi1pk', partition);
    return queryPage(
      this.options.doc,
      {
        input: {
          TableName: this.options.table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': partition },
        },
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        list: this.kind.list,
        ascending: true,
      },
      query,
      (item) => this.kind.fromItem(item),
    );
  }

  retry<R>(step: () => Promise<Attempt<R>>): Promise<R> {
    return retryRaces(step, {
      maxAttempts: MAX_SAVE_ATTEMPTS,
      ...SAVE_BACKOFF,
      sleep: this.options.sleep,
      busy: `the ${this.kind.list.replace(/s$/, '')} is being changed concurrently; retry shortly`,
    });
  }

  /** The record with the version its next write is conditional on (for changes spanning two records). */
  async read(id: string): Promise<Versioned<T> | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: recordKey(this.options.environment, this.kind.name, id),
        ConsistentRead: true,
      }),
    );
    return Item ? { record: this.kind.fromItem(Item), version: Number(Item.version) } : undefined;
  }

  /** The items of one change: the record, conditional on `current`'s version, and its event row. */
  putItems(next: T, current: Versioned<T> | undefined): TransactItem[] {
    const { table, environment } = this.options;
    const nowMs = this.options.now();
    const updatedAt = formatInstant(instantFromMs(nowMs));
    const version = (current?.version ?? 0) + 1;
    const item = {
      ...recordKey(environment, this.kind.name, next.id),
      gsi1pk: recordsByCreation(environment, this.kind.name),
      gsi1sk: `${sortableCreatedAt(next.createdAt)}#${next.id}`,
      ...this.kind.toItem(next),
      version,
      updatedAt,
    };
    const put: TransactItem = current
      ? {
          Put: {
            TableName: table,
            Item: item,
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': current.version },
          },
        }
      : { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
    const index: TransactItem[] = current
      ? []
      : (this.kind.createdIndexItems?.(next, environment) ?? []).map((Item) => ({
          Put: { TableName: table, Item },
        }));
    const at = { id: next.id, version, date: updatedAt, nowMs };
    const saved = this.kind.savedEvent;
    const events = saved
      ? [this.eventItem(saved.type, saved.payload(next), { ...at, seed: String(version) })]
      : [];
    for (const e of this.kind.changeEvents?.(next, current?.record) ?? [])
      events.push(this.eventItem(e.type, e.payload, { ...at, seed: `${version}/${e.key}` }));
    return [put, ...index, ...events];
  }

  /**
   * The event row of one change. Its id derives from (environment, kind, record id, version): a retried attempt
   * writes the same row, and one version can never produce two events.
   */
  private eventItem(
    type: EventKind,
    payload: unknown,
    at: { seed: string; id: string; version: number; date: string; nowMs: number },
  ): TransactItem {
    const { environment, eventsTable } = this.options;
    const row = outboxRow({
      type,
      seed: `payments/${environment}/${this.kind.name}/${at.id}/${at.seed}`,
      idempotencyKey: `${at.id}/${at.seed}`,
      date: at.date,
      payload,
      environment,
      nowMs: at.nowMs,
      attributes: { recordKind: this.kind.name, recordId: at.id, recordVersion: at.version },
    });
    return { Put: { TableName: eventsTable, Item: row } };
  }
}
