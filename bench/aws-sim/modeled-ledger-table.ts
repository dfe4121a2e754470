/**
 * The write engine's port (lib/ledger/store/ledger-table.ts) with AWS's costs: every call waits as long as the
 * latency model draws, takes its capacity units from its partition keys (CapacityModel) and is throttled as
 * DynamoDB would, then does what the in-memory table does. The engine above it is the real one, unchanged.
 *
 * Throttled single-item and batch requests are retried as the AWS SDK's standard strategy does (3 attempts,
 * full jitter over 500 ms × 2^n for throttling); a throttled TransactWriteItems is cancelled with the
 * `ThrottlingError` reason and left to the engine's own retry, as on AWS.
 */
import { commitActions } from '../../lib/ledger/store/commit.js';
import type { CommitWrite } from '../../lib/ledger/store/decide-batch.js';
import type { Head } from '../../lib/ledger/store/head.js';
import {
  type ItemKey,
  keyString,
  type LedgerRef,
  ledgerKeys,
} from '../../lib/ledger/store/keys.js';
import type { LedgerTable } from '../../lib/ledger/store/ledger-table.js';
import type { StoredLogEntry } from '../../lib/ledger/store/log-pages.js';
import type { MemoryLedgerTable } from '../../lib/ledger/store/memory-ledger-table.js';
import type { CapacityModel, UnitKind } from './capacity-model.js';
import { itemBytes, readUnits, writeUnits } from './item-size.js';
import type { LatencyModel, ModeledOperation } from './latency-model.js';

type Item = Record<string, unknown>;

const MAX_TRANSACTION_BYTES = 4 * 1024 * 1024;
const SDK_ATTEMPTS = 3;
const SDK_THROTTLING_BASE_MS = 500;

export interface ModeledCounters {
  requests: Record<string, number>;
  throttledRequests: number;
  sdkRetries: number;
}

export class ModeledLedgerTable implements LedgerTable {
  readonly counters: ModeledCounters = { requests: {}, throttledRequests: 0, sdkRetries: 0 };

  constructor(
    private readonly inner: MemoryLedgerTable,
    private readonly ledger: LedgerRef,
    private readonly latency: LatencyModel,
    private readonly capacity: CapacityModel,
    private readonly random: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  async getItems(keys: readonly ItemKey[]): Promise<Array<Item | undefined>> {
    const chunks: ItemKey[][] = [];
    for (let i = 0; i < keys.length; i += 100) chunks.push(keys.slice(i, i + 100));
    await Promise.all(
      chunks.map((chunk) =>
        this.request('BatchGetItem', chunk.length, 'read', () =>
          unitsByKey(chunk.map((key) => [key, readUnits(this.bytesOf(key))])),
        ),
      ),
    );
    return this.inner.getItems(keys);
  }

  async floorKeys(keys: readonly ItemKey[]): Promise<Array<ItemKey | undefined>> {
    // One Query of one small item (its key) per key.
    await Promise.all(
      keys.map((key) => this.request('Query', 1, 'read', () => unitsByKey([[key, readUnits(0)]]))),
    );
    return this.inner.floorKeys(keys);
  }

  async readSnapshot(keys: readonly ItemKey[]): Promise<Array<Item | undefined> | 'conflict'> {
    // A transactional read costs twice the units of a consistent one.
    await this.request('TransactGetItems', keys.length, 'read', () =>
      unitsByKey(keys.map((key) => [key, 2 * readUnits(this.bytesOf(key))])),
    );
    return this.inner.readSnapshot(keys);
  }

  async takeHead(owner: string, leaseUntilMs: number): Promise<Head> {
    const key = ledgerKeys.head(this.ledger);
    await this.request('UpdateItem', 1, 'write', () =>
      unitsByKey([[key, writeUnits(this.bytesOf(key), false)]]),
    );
    return this.inner.takeHead(owner, leaseUntilMs);
  }

  async commit(
    initial: Head,
    next: Head,
    writes: readonly CommitWrite[],
  ): ReturnType<LedgerTable['commit']> {
    const actions = commitActions('modeled', ledgerKeys.head(this.ledger), initial, next, [
      ...writes,
    ]);
    const sized = actions.map(({ item }) => {
      const put = item.Put?.Item as Item | undefined;
      const key = (put ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as ItemKey;
      return { key, put, bytes: put ? itemBytes(put) : itemBytes(key as unknown as Item) };
    });
    if (sized.reduce((n, s) => n + s.bytes, 0) > MAX_TRANSACTION_BYTES)
      throw Object.assign(new Error('Transaction request cannot be larger than 4 MB'), {
        name: 'ValidationException',
      });
    this.count('TransactWriteItems');
    await this.sleep(this.latency.sampleMs('TransactWriteItems', actions.length));
    const throttled = this.capacity.take(
      'write',
      withIndexUnits(
        unitsByKey(sized.map((s) => [s.key, writeUnits(s.bytes, true)])),
        sized.flatMap((s) => (s.put ? [{ item: s.put, before: this.inner.get(s.key) }] : [])),
      ),
    );
    if (throttled) {
      this.counters.throttledRequests++;
      throw Object.assign(new Error(`Transaction cancelled: throttled on ${throttled}`), {
        name: 'TransactionCanceledException',
        CancellationReasons: sized.map((s) =>
          keyString(s.key) === throttled ? { Code: 'ThrottlingError' } : { Code: 'None' },
        ),
      });
    }
    return this.inner.commit(initial, next, writes);
  }

  async putItems(items: readonly Item[], options: { ifAbsent: boolean }): Promise<void> {
    const requests: Item[][] = [];
    if (options.ifAbsent) for (const item of items) requests.push([item]);
    else for (let i = 0; i < items.length; i += 25) requests.push(items.slice(i, i + 25));
    await Promise.all(
      requests.map((request) =>
        this.request(options.ifAbsent ? 'PutItem' : 'BatchWriteItem', request.length, 'write', () =>
          withIndexUnits(
            unitsByKey(
              request.map((item) => [item as ItemKey, writeUnits(itemBytes(item), false)]),
            ),
            request.map((item) => ({ item, before: this.inner.get(item as ItemKey) })),
          ),
        ),
      ),
    );
    return this.inner.putItems(items, options);
  }

  async clearPending(version: number | undefined): Promise<void> {
    if (version === undefined) return;
    const key = ledgerKeys.head(this.ledger);
    await this.request('UpdateItem', 1, 'write', () =>
      unitsByKey([[key, writeUnits(this.bytesOf(key), false)]]),
    );
    return this.inner.clearPending(version);
  }

  async readLogRange(first: number, last: number): Promise<StoredLogEntry[]> {
    const entries = await this.inner.readLogRange(first, last);
    const bytes = entries.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.log), 'utf8'), 0);
    await this.request(
      'Query',
      1,
      'read',
      () => new Map([[ledgerKeys.logPartition(this.ledger), readUnits(bytes)]]),
    );
    return entries;
  }

  /** One request to DynamoDB: its latency, its units, the SDK's retries when throttled. */
  private async request(
    operation: ModeledOperation,
    items: number,
    kind: UnitKind,
    units: () => Map<string, number>,
  ): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      this.count(operation);
      await this.sleep(this.latency.sampleMs(operation, items));
      const throttled = this.capacity.take(kind, units());
      if (!throttled) return;
      this.counters.throttledRequests++;
      if (attempt + 1 >= SDK_ATTEMPTS)
        throw Object.assign(new Error(`throttled on ${throttled}`), {
          name: 'ProvisionedThroughputExceededException',
        });
      this.counters.sdkRetries++;
      await this.sleep(this.random() * SDK_THROTTLING_BASE_MS * 2 ** attempt);
    }
  }

  private bytesOf(key: ItemKey): number {
    const item = this.inner.get(key);
    return item ? itemBytes(item) : 1;
  }

  private count(operation: string): void {
    this.counters.requests[operation] = (this.counters.requests[operation] ?? 0) + 1;
  }
}

/**
 * The index's share of a write: an item put with a gsi1 key writes gsi1 too — one unit per started KB on the
 * index's partition key, transaction or not — and replacing an item whose gsi1 key differs also removes the
 * old index entry (one unit on that key). An index partition throttles the table's writes like its own.
 */
function withIndexUnits(
  units: Map<string, number>,
  puts: ReadonlyArray<{ item: Item; before: Item | undefined }>,
): Map<string, number> {
  const add = (key: string, n: number) => units.set(key, (units.get(key) ?? 0) + n);
  for (const { item, before } of puts) {
    const key = item.gsi1pk === undefined ? undefined : `gsi1 ${String(item.gsi1pk)}`;
    if (key) add(key, writeUnits(itemBytes(item), false));
    const old = before?.gsi1pk === undefined ? undefined : `gsi1 ${String(before.gsi1pk)}`;
    if (old && (old !== key || before?.gsi1sk !== item.gsi1sk)) add(old, 1);
  }
  return units;
}

/** Units per partition key (the capacity model's unit of account). */
function unitsByKey(entries: Array<[ItemKey, number]>): Map<string, number> {
  const units = new Map<string, number>();
  for (const [key, n] of entries) units.set(String(key.pk), (units.get(String(key.pk)) ?? 0) + n);
  return units;
}
