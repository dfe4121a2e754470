import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { classifyWriteFailure } from '../../dynamo/errors.js';
import { ValidationError } from '../../errors/index.js';
import type { Write } from './change-items.js';
import type { CommitWrite } from './decide-batch.js';
import type { Head } from './head.js';
import { type ItemKey, keyString } from './keys.js';
import { logEntryBytes, logPages, MAX_LOG_PAGE_BYTES } from './log-pages.js';

/** DynamoDB's limit on items in one TransactWriteItems / TransactGetItems. */
export const MAX_TRANSACTION_ITEMS = 100;

/** Why a commit did not happen and must be decided again from fresh state. */
export type CommitRetry = 'head-moved' | 'conflict' | 'idempotency';

/**
 * The one TransactWriteItems of a ledger commit: HEAD (next version, conditional on the version read) and the
 * writes. Answers undefined once committed, or why it must be decided again (HEAD moved, another transaction
 * held an item, an idempotency key committed meanwhile). A decision's own failed condition (a reference taken)
 * throws its error; throttling and anything else is thrown as is.
 */
export async function commitWrites(
  doc: DynamoDBDocumentClient,
  table: string,
  headKey: ItemKey,
  initial: Head,
  head: Head,
  writes: CommitWrite[],
  options: { clientRequestToken?: string } = {},
): Promise<CommitRetry | undefined> {
  const transaction = commitActions(table, headKey, initial, head, writes);
  try {
    await doc.send(
      new TransactWriteCommand({
        TransactItems: transaction.map((w) => w.item),
        ...(options.clientRequestToken ? { ClientRequestToken: options.clientRequestToken } : {}),
      }),
    );
  } catch (err) {
    const failure = classifyWriteFailure(err);
    if (failure.kind === 'throttled' || (err as Error).name !== 'TransactionCanceledException')
      throw err;
    const failed = failure.index;
    if (failed === 0) return 'head-moved';
    if (failure.kind === 'conflict') return 'conflict';
    if (transaction[failed]?.idempotency) return 'idempotency';
    const onFailure = failed >= 0 ? transaction[failed]?.onConditionFailure : undefined;
    if (onFailure) throw onFailure();
    throw err;
  }
  return undefined;
}

/** HEAD's put and the writes, one action per item, within DynamoDB's limit. */
export function commitActions(
  table: string,
  headKey: ItemKey,
  initial: Head,
  head: Head,
  writes: CommitWrite[],
): CommitWrite[] {
  // The version written is always the one read plus one, whatever `head` carries.
  const { version: _versionRead, ...state } = head;
  const transaction = commitItems([
    {
      item: {
        Put: {
          TableName: table,
          Item: { ...headKey, ...state, version: (initial.version ?? 0) + 1 },
          // HEAD items from before versions existed are still guarded by their log id.
          ...(initial.version === undefined
            ? {
                ConditionExpression: 'attribute_not_exists(#version) AND lastLogId = :previous',
                ExpressionAttributeValues: { ':previous': initial.lastLogId },
              }
            : {
                ConditionExpression: '#version = :previous',
                ExpressionAttributeValues: { ':previous': initial.version },
              }),
          ExpressionAttributeNames: { '#version': 'version' },
        },
      },
    },
    ...writes,
  ]);
  if (transaction.length > MAX_TRANSACTION_ITEMS) {
    throw new ValidationError(
      `the request touches too many accounts and assets (${transaction.length} items to write, at most ${MAX_TRANSACTION_ITEMS})`,
    );
  }
  return transaction;
}

/**
 * Actions a commit of these writes takes (HEAD's put included): what the 100-action limit counts. `deferred`:
 * new transactions' items are put after the commit (a sequenced writer), so they do not count.
 */
export function actionCount(writes: CommitWrite[], options: { deferred?: boolean } = {}): number {
  return new ActionTally(options.deferred ?? false).actionsWith(writes);
}

/**
 * The actions of a commit being built, counted as writes are added — what `commitItems` would make of them (one
 * action per item, the last write of an item deciding whether it is deferred, log entries gathered into pages
 * as logPages gathers them) without building a page or an item. A group commit asks before each request it adds,
 * so the count costs the request's writes, not the whole batch's.
 */
export class ActionTally {
  /** Each item written so far, by table and key: whether its last write is deferred after the commit. */
  private readonly items = new Map<string, boolean>();
  private counted = 0;
  private pages = 0;
  private pageBytes = 0;

  constructor(private readonly deferred: boolean) {}

  /** The actions, HEAD's included, with these writes added (nothing is added). */
  actionsWith(writes: readonly CommitWrite[]): number {
    return this.tally(writes, new Map());
  }

  add(writes: readonly CommitWrite[]): void {
    this.tally(writes, this.items);
  }

  private tally(writes: readonly CommitWrite[], items: Map<string, boolean>): number {
    const keep = items === this.items;
    let { counted, pages, pageBytes } = this;
    const counts = (deferrable: boolean) => !(this.deferred && deferrable);
    for (const w of writes) {
      if (w.log) {
        const size = logEntryBytes(w.item.Put!.Item);
        if (pages === 0 || pageBytes + size > MAX_LOG_PAGE_BYTES) {
          pages++;
          pageBytes = 0;
        }
        pageBytes += size;
        continue;
      }
      const target = targetOf(w);
      if (target === undefined) {
        counted++;
        continue;
      }
      const before = items.has(target) ? items.get(target) : this.items.get(target);
      if (before !== undefined && counts(before)) counted--;
      const deferrable = w.deferrable === true;
      items.set(target, deferrable);
      if (counts(deferrable)) counted++;
    }
    if (keep) Object.assign(this, { counted, pages, pageBytes });
    return counted + pages + 1;
  }
}

/** The item a write puts or deletes (collapse's key); undefined for an action that is always its own. */
function targetOf(w: Write): string | undefined {
  const put = w.item.Put;
  if (put) return `${put.TableName}\u0000${keyString(put.Item as ItemKey)}`;
  const del = w.item.Delete;
  return del ? `${del.TableName}\u0000${keyString(del.Key as ItemKey)}` : undefined;
}

/** A commit's writes as items: its log entries gathered into pages (log-pages.ts), then one action per item. */
export function commitItems(writes: CommitWrite[]): CommitWrite[] {
  const logs = writes.filter((w) => w.log);
  if (logs.length <= 1) return collapse(writes);
  const table = logs[0]!.item.Put!.TableName;
  const pages: CommitWrite[] = logPages(logs.map((w) => w.item.Put!.Item)).map((Item) => ({
    item: { Put: { TableName: table, Item } },
  }));
  return collapse([...writes.filter((w) => !w.log), ...pages]);
}

/** A sequenced writer's commit: what goes in the TransactWriteItems, and the new transactions' items put after it. */
export function splitDeferred(writes: CommitWrite[]): {
  atomic: CommitWrite[];
  after: Array<Record<string, unknown>>;
} {
  const items = commitItems(writes);
  return {
    atomic: items.filter((w) => !w.deferrable),
    after: items.filter((w) => w.deferrable).map((w) => w.item.Put!.Item),
  };
}

/**
 * One action per item, as DynamoDB requires: when a batch writes the same item twice (put, or delete), the last
 * action wins; a Put keeps the first action's condition, which speaks of the state before the batch.
 */
export function collapse<W extends Write>(writes: W[]): W[] {
  const byKey = new Map<string, W>();
  for (const w of writes) {
    const put = w.item.Put;
    const target = targetOf(w) ?? `#${byKey.size}`;
    const earlier = byKey.get(target);
    const condition = earlier?.item.Put ?? earlier?.item.Delete;
    if (earlier && condition?.ConditionExpression && put) {
      byKey.set(target, {
        ...w,
        item: {
          Put: {
            ...put,
            ConditionExpression: condition.ConditionExpression,
            ExpressionAttributeValues: condition.ExpressionAttributeValues,
            ExpressionAttributeNames: condition.ExpressionAttributeNames,
          },
        },
        onConditionFailure: earlier.onConditionFailure ?? w.onConditionFailure,
      } as W);
    } else byKey.set(target, w);
  }
  return [...byKey.values()];
}
