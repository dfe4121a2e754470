import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { EventKind } from '../../../events/catalog.js';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { commitUnlessRaced, retryRaces } from '../../dynamo/optimistic.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import type { EventSource } from '../../events/envelope.js';
import { outboxRow } from '../../events/outbox.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs, parseInstant, sortableInstant } from '../../time/instant.js';
import { sameConfig, type WebhookConfig } from '../domain/config.js';
import {
  configKey,
  configsByCreation,
  creationSort,
  endpointDigest,
  endpointPartition,
  subscriptionKey,
  subscriptionsVersionKey,
} from './keys.js';

/**
 * Retries of a change, sized to the contention a config sees: a dashboard, scripts and the deliverer (410 Gone)
 * may all write one config at once, and the contended test (50 concurrent writers on DynamoDB Local) must see
 * every change applied. With full jitter each lost race waits up to 25, 50, 100 … ms, at most `MAX_SAVE_DELAY_MS`,
 * so n writers spread over a window that grows until about one in n commits per round; the worst case before a
 * 503 is under 12 s of waiting, inside API Gateway's 29 s. A lost race costs one more read and write.
 */
export const MAX_SAVE_ATTEMPTS = 20;
export const FIRST_SAVE_DELAY_MS = 25;
export const MAX_SAVE_DELAY_MS = 800;
export const CONFIGS_LIST = 'webhook-configs';

export interface ConfigStoreOptions {
  doc: DynamoDBDocumentClient;
  table: string;
  /** The environment whose configs this store reads and writes: every key it builds is in it. */
  environment: string;
  now?: () => number;
  /** Waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** The events table: where a change's operator events are written (the outbox), with the change. */
  eventsTable?: string;
}

/** Events a change emits, written in its transaction: an event without its change, or the reverse, never exists. */
export type ChangeEvents = (
  before: WebhookConfig,
  next: WebhookConfig,
) => Array<Pick<EventSource, 'type' | 'seed' | 'date' | 'payload'>>;

/** The list's filters: `id` (read by key) and `endpoint` (its index partition, by digest). */
export interface ConfigFilter {
  id?: string;
  /** The endpoint as asked for; the list reads its index partition, named by its digest. */
  endpoint?: string;
  /** The endpoint's digest (`endpointDigest`), which is what a cursor carries. */
  endpointDigest?: string;
}

interface Stored {
  config: WebhookConfig;
  version: number;
}

/**
 * Webhook configurations of one environment in the webhooks table. Every change is one TransactWriteItems: the config (conditional
 * on the version read, or on not existing yet), its endpoint index item and the subscription items that change
 * with it. A lost race (condition failed, transaction conflict) is read and decided again, a bounded number of
 * times, so concurrent changes never overwrite each other.
 */
export class ConfigStore {
  readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ConfigStoreOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async get(id: string): Promise<WebhookConfig | undefined> {
    return (await this.read(id))?.config;
  }

  /** Stores a new config; its id is fresh (a uuid), so the condition only guards against a collision. */
  async create(config: WebhookConfig): Promise<WebhookConfig> {
    await this.options.doc.send(
      new TransactWriteCommand({ TransactItems: this.transaction(config, 1, undefined) }),
    );
    return config;
  }

  /**
   * Changes config `id`: `decide` gets the current record and returns the new one (or throws to refuse); it is
   * called again after a lost race. Undefined when the config does not exist. Nothing is written when nothing
   * changed; otherwise `updatedAt` is set to now.
   */
  async update(
    id: string,
    decide: (current: WebhookConfig) => WebhookConfig,
    events?: ChangeEvents,
  ): Promise<WebhookConfig | undefined> {
    return this.retrying(async () => {
      const current = await this.read(id);
      if (!current) return { done: true, value: undefined };
      const decided = decide(current.config);
      if (sameConfig(current.config, decided)) return { done: true, value: current.config };
      const nowMs = this.now();
      const next = { ...decided, updatedAt: formatInstant(instantFromMs(nowMs)) };
      const outbox = (events?.(current.config, next) ?? []).map((e) => this.outboxPut(e, nowMs));
      return (await commitUnlessRaced(this.options.doc, [
        ...this.transaction(next, current.version + 1, current),
        ...outbox,
      ]))
        ? { done: true, value: next }
        : { done: false };
    });
  }

  /** Deletes config `id` with its index and subscription items; the deleted record, or undefined if none. */
  async delete(id: string): Promise<WebhookConfig | undefined> {
    return this.retrying(async () => {
      const current = await this.read(id);
      if (!current) return { done: true, value: undefined };
      const { table, environment } = this.options;
      const { config, version } = current;
      const items: TransactItem[] = [
        {
          Delete: {
            TableName: table,
            Key: configKey(environment, config.id),
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': version },
          },
        },
        { Delete: { TableName: table, Key: endpointIndexKey(environment, config) } },
        ...config.eventTypes.map(
          (kind): TransactItem => ({
            Delete: { TableName: table, Key: subscriptionKey(environment, kind, config.id) },
          }),
        ),
        subscriptionsMoved(table, environment),
      ];
      return (await commitUnlessRaced(this.options.doc, items))
        ? { done: true, value: config }
        : { done: false };
    });
  }

  /** Newest first by creation: over gsi1, by key (`id`), or over the endpoint's index partition. */
  async list(query: ListQuery, asked: ConfigFilter): Promise<Page<WebhookConfig>> {
    const { doc, table, environment } = this.options;
    const { endpoint, ...filter } = asked;
    if (endpoint !== undefined) filter.endpointDigest = endpointDigest(endpoint);
    if (filter.id !== undefined) {
      // One key: at most one item, so never a further page.
      const found = await this.get(filter.id);
      const matches =
        found &&
        (filter.endpointDigest === undefined ||
          endpointDigest(found.endpoint) === filter.endpointDigest);
      return { pageSize: query.pageSize, hasMore: false, data: matches ? [found] : [] };
    }
    if (filter.endpointDigest === undefined) {
      const partition = configsByCreation(environment);
      requireCursorPartition(query, 'gsi1pk', partition);
      return queryPage(
        doc,
        {
          input: {
            TableName: table,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :p',
            ExpressionAttributeValues: { ':p': partition },
          },
          keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
          list: CONFIGS_LIST,
          ascending: false,
          filters: {},
        },
        query,
        (item) => fromItem(item).config,
      );
    }
    const partition = endpointPartition(environment, filter.endpointDigest);
    requireCursorPartition(query, 'pk', partition);
    const ids = await queryPage(
      doc,
      {
        input: {
          TableName: table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': partition },
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: CONFIGS_LIST,
        ascending: false,
        filters: { endpointDigest: filter.endpointDigest },
      },
      query,
      (item) => String(item.configId),
    );
    const items = await batchGetInOrder(
      doc,
      table,
      ids.data.map((id) => configKey(environment, id)),
    );
    return {
      ...ids,
      data: items
        .filter((i): i is Record<string, unknown> => i !== undefined)
        .map((i) => fromItem(i).config),
    };
  }

  /** An operator event's outbox row, in this store's environment; written once (its id comes from its seed). */
  private outboxPut(
    event: Pick<EventSource, 'type' | 'seed' | 'date' | 'payload'>,
    nowMs: number,
  ): TransactItem {
    const { eventsTable, environment } = this.options;
    if (!eventsTable) throw new Error(`ConfigStore: ${event.type} needs the events table`);
    return {
      Put: {
        TableName: eventsTable,
        Item: outboxRow({ ...event, idempotencyKey: '', environment, nowMs, attributes: {} }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  private async read(id: string): Promise<Stored | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: configKey(this.options.environment, id),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  private retrying<T>(step: () => Promise<{ done: true; value: T } | { done: false }>): Promise<T> {
    return retryRaces(step, {
      maxAttempts: MAX_SAVE_ATTEMPTS,
      // The first wait's window is 2 × baseDelayMs.
      baseDelayMs: FIRST_SAVE_DELAY_MS / 2,
      maxDelayMs: MAX_SAVE_DELAY_MS,
      sleep: this.sleep,
      busy: 'the webhook configuration is being changed concurrently; retry shortly',
    });
  }

  private transaction(
    next: WebhookConfig,
    version: number,
    current: Stored | undefined,
  ): TransactItem[] {
    const { table, environment } = this.options;
    const item = {
      ...configKey(environment, next.id),
      gsi1pk: configsByCreation(environment),
      gsi1sk: sortKey(next),
      ...next,
      eventTypes: [...next.eventTypes],
      version,
    };
    const main: TransactItem = current
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
    const items: TransactItem[] = [main];
    const before = current?.config;
    // createdAt never changes, so the endpoint item's sort key does not either: only its partition moves.
    if (!before || before.endpoint !== next.endpoint) {
      items.push({
        Put: {
          TableName: table,
          Item: { ...endpointIndexKey(environment, next), configId: next.id },
        },
      });
      if (before)
        items.push({ Delete: { TableName: table, Key: endpointIndexKey(environment, before) } });
    }
    // Subscription items: exactly one per subscribed kind, carrying the config's `active`.
    const had = new Set<EventKind>(before?.eventTypes ?? []);
    const subscriptions: TransactItem[] = [];
    for (const kind of next.eventTypes) {
      if (!had.has(kind) || before?.active !== next.active) {
        subscriptions.push({
          Put: {
            TableName: table,
            Item: {
              ...subscriptionKey(environment, kind, next.id),
              configId: next.id,
              active: next.active,
            },
          },
        });
      }
    }
    for (const kind of had) {
      if (!next.eventTypes.includes(kind))
        subscriptions.push({
          Delete: { TableName: table, Key: subscriptionKey(environment, kind, next.id) },
        });
    }
    return subscriptions.length > 0
      ? [...items, ...subscriptions, subscriptionsMoved(table, environment)]
      : items;
  }
}

/** The subscriptions version moves with every change of subscription items (keys.ts): dispatch reloads on it. */
const subscriptionsMoved = (table: string, environment: string): TransactItem => ({
  Update: {
    TableName: table,
    Key: subscriptionsVersionKey(environment),
    UpdateExpression: 'ADD #n :one',
    ExpressionAttributeNames: { '#n': 'n' },
    ExpressionAttributeValues: { ':one': 1 },
  },
});

const sortKey = (config: WebhookConfig) =>
  creationSort(sortableInstant(parseInstant(config.createdAt, 'createdAt')), config.id);

const endpointIndexKey = (environment: string, config: WebhookConfig) => ({
  pk: endpointPartition(environment, endpointDigest(config.endpoint)),
  sk: sortKey(config),
});

function fromItem(item: Record<string, unknown>): Stored {
  const config: WebhookConfig = {
    id: String(item.id),
    name: String(item.name ?? ''),
    endpoint: String(item.endpoint),
    eventTypes: [...(item.eventTypes as EventKind[])],
    secret: String(item.secret),
    active: item.active === true,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  if (item.previousSecret !== undefined) config.previousSecret = String(item.previousSecret);
  if (item.previousSecretExpiresAt !== undefined)
    config.previousSecretExpiresAt = String(item.previousSecretExpiresAt);
  if (item.rateLimitPerSecond !== undefined)
    config.rateLimitPerSecond = Number(item.rateLimitPerSecond);
  if (item.failingSince !== undefined) config.failingSince = String(item.failingSince);
  if (item.disabledAt !== undefined) config.disabledAt = String(item.disabledAt);
  if (item.disabledReason === 'failing' || item.disabledReason === 'gone')
    config.disabledReason = item.disabledReason;
  return { config, version: Number(item.version) };
}
