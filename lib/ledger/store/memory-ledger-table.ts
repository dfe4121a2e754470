import type { TransactItem } from '../../dynamo/transact-item.js';
import { type CommitRetry, commitActions } from './commit.js';
import type { CommitWrite } from './decide-batch.js';
import { type Head, headFromItem } from './head.js';
import { type ItemKey, keyString, type LedgerRef, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import { type StoredLogEntry, storedEntriesOf } from './log-pages.js';
import { type StoredTransaction, transactionIn } from './transaction-pages.js';

type Item = Record<string, unknown>;

/** The table name the memory table's actions carry (the commit's items are built for a named table). */
const MEMORY_TABLE = 'memory';

/**
 * The write engine's port in memory: one ledger's items in a Map, written with the same actions and conditions as
 * on DynamoDB (the commit's own TransactWriteItems actions, built by commit.ts). Only the conditions the ledger's
 * writes use are understood; any other is a fault of the caller and throws. Counts the requests it serves, as the
 * per-transaction budget counts them.
 */
export class MemoryLedgerTable implements LedgerTable {
  readonly items = new Map<string, Item>();
  readonly requests: Record<string, number> = {};
  private readonly headKey: ItemKey;

  constructor(private readonly ledger: LedgerRef) {
    this.headKey = ledgerKeys.head(ledger);
  }

  /** A fresh ledger's HEAD, as ledger creation writes it. */
  static withHead(ledger: LedgerRef): MemoryLedgerTable {
    const table = new MemoryLedgerTable(ledger);
    table.put({ ...ledgerKeys.head(ledger), lastTxId: 0, lastLogId: 0, lastHash: '', accounts: 0 });
    return table;
  }

  put(item: Item): void {
    this.items.set(keyString(item as ItemKey), structuredClone(item));
  }

  get(key: ItemKey): Item | undefined {
    const item = this.items.get(keyString(key));
    return item === undefined ? undefined : structuredClone(item);
  }

  /** Transaction `id`, whichever item holds it (its own, or a page): what tests and simulations look up. */
  transaction(id: number): StoredTransaction | undefined {
    return transactionIn(this.floor(ledgerKeys.transaction(this.ledger, id)), id);
  }

  /** The item with the greatest sort key at or below `key`'s in its partition. */
  private floor({ pk, sk }: ItemKey): Item | undefined {
    let best: Item | undefined;
    for (const item of this.items.values())
      if (item.pk === pk && String(item.sk) <= sk && (!best || String(item.sk) > String(best.sk)))
        best = item;
    return best;
  }

  async getItems(keys: readonly ItemKey[]): Promise<Array<Item | undefined>> {
    this.count('BatchGetItem', Math.max(1, Math.ceil(keys.length / 100)));
    return keys.map((key) => this.get(key));
  }

  async floorKeys(keys: readonly ItemKey[]): Promise<Array<ItemKey | undefined>> {
    this.count('Query', keys.length);
    return keys.map((key) => {
      const found = this.floor(key);
      return found ? { pk: String(found.pk), sk: String(found.sk) } : undefined;
    });
  }

  async readSnapshot(keys: readonly ItemKey[]): Promise<Array<Item | undefined> | 'conflict'> {
    this.count('TransactGetItems');
    return keys.map((key) => this.get(key));
  }

  async takeHead(owner: string, leaseUntilMs: number): Promise<Head> {
    this.count('UpdateItem');
    const head = this.get(this.headKey);
    if (!head) throw new Error(`ledger ${this.ledger.name} has no HEAD item`);
    const next = {
      ...head,
      leaseOwner: owner,
      leaseUntil: leaseUntilMs,
      version: Number(head.version ?? 0) + 1,
    };
    this.put(next);
    return headFromItem(next);
  }

  async commit(
    initial: Head,
    next: Head,
    writes: readonly CommitWrite[],
  ): Promise<CommitRetry | undefined> {
    this.count('TransactWriteItems');
    const actions = commitActions(MEMORY_TABLE, this.headKey, initial, next, [...writes]);
    const failed = actions.findIndex((action) => !this.holds(action.item));
    if (failed === 0) return 'head-moved';
    if (failed > 0) {
      const action = actions[failed]!;
      if (action.idempotency) return 'idempotency';
      if (action.onConditionFailure) throw action.onConditionFailure();
      throw new Error('TransactionCanceledException: ConditionalCheckFailed');
    }
    for (const { item } of actions) this.apply(item);
    return undefined;
  }

  async putItems(items: readonly Item[], options: { ifAbsent: boolean }): Promise<void> {
    this.count(
      options.ifAbsent ? 'PutItem' : 'BatchWriteItem',
      options.ifAbsent ? items.length : 1,
    );
    for (const item of items)
      if (!options.ifAbsent || !this.items.has(keyString(item as ItemKey))) this.put(item);
  }

  async clearPending(version: number | undefined): Promise<void> {
    if (version === undefined) return;
    this.count('UpdateItem');
    const head = this.get(this.headKey);
    if (!head || Number(head.version) !== version) return;
    const { pendingResults: _settled, ...rest } = head;
    this.put(rest);
  }

  async readLogRange(first: number, last: number): Promise<StoredLogEntry[]> {
    this.count('Query');
    const partition = ledgerKeys.logPartition(this.ledger);
    return [...this.items.values()]
      .filter((item) => item.pk === partition)
      .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
      .flatMap((item) => storedEntriesOf(item))
      .filter((e) => e.log.id >= first && e.log.id <= last);
  }

  private count(operation: string, n = 1): void {
    this.requests[operation] = (this.requests[operation] ?? 0) + n;
  }

  /** Whether an action's condition holds on the items as they are (before any action of its transaction). */
  private holds(item: TransactItem): boolean {
    const action = item.Put ?? item.Delete;
    if (!action?.ConditionExpression) return true;
    const key = (item.Put ? item.Put.Item : item.Delete!.Key) as ItemKey;
    const current = this.items.get(keyString(key));
    const values = action.ExpressionAttributeValues ?? {};
    switch (action.ConditionExpression) {
      case 'attribute_not_exists(pk)':
        return current === undefined;
      case 'attribute_exists(pk)':
        return current !== undefined;
      case '#version = :previous':
        return current !== undefined && Number(current.version) === Number(values[':previous']);
      case 'attribute_not_exists(#version) AND lastLogId = :previous':
        return (
          current !== undefined &&
          current.version === undefined &&
          Number(current.lastLogId) === Number(values[':previous'])
        );
      default:
        throw new Error(`the memory table does not understand "${action.ConditionExpression}"`);
    }
  }

  private apply(item: TransactItem): void {
    if (item.Put) this.put(item.Put.Item);
    else if (item.Delete) this.items.delete(keyString(item.Delete.Key as ItemKey));
    else throw new Error('the memory table writes Put and Delete actions only');
  }
}
