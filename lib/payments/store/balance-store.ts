import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { requireCursorPartition } from '../../dynamo/cursor-partition.js';
import { commitUnlessRaced, retryRaces } from '../../dynamo/optimistic.js';
import { queryPage } from '../../dynamo/paginate.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { NotFoundError } from '../../errors/index.js';
import { outboxRow } from '../../events/outbox.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { applyReading, type Balance, type BalanceReading } from '../domain/balance.js';
import { sortableCreatedAt } from '../domain/input.js';
import { providerOf } from '../domain/payment.js';
import {
  BALANCE_ROW_PREFIX,
  balanceRowKey,
  LATEST_BALANCE_PREFIX,
  latestBalanceKey,
  recordKey,
} from './keys.js';
import { MAX_SAVE_ATTEMPTS, SAVE_BACKOFF } from './payment-store.js';
import type { RecordStoreOptions } from './record-store.js';

export const BALANCES_LIST = 'balances';

export interface BalanceFilter {
  asset?: string;
  /** Periods still current at or after `from` (RFC 3339). */
  from?: string;
  /** Periods begun at or before `to`. */
  to?: string;
}

/**
 * One environment's account balances (keys: store/keys.ts). A reading is one transaction: the period row it opens
 * or extends, the account's `LATEST#<asset>` row (conditional on the version read, so two readings of one asset
 * never both open a period), a check that the account exists, and, when it opens a period, its
 * `payments.saved_balance` event.
 */
export class BalanceStore {
  constructor(private readonly options: RecordStoreOptions) {}

  /** Records one reading; returns what it did to the account's history. */
  async record(
    reading: BalanceReading,
    connectorID: string,
  ): Promise<'opened' | 'extended' | 'stale'> {
    // Accounts are removed only with their balances (a connector's uninstall), so one read suffices.
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: recordKey(this.options.environment, 'ACCOUNT', reading.accountID),
        ProjectionExpression: 'pk',
        ConsistentRead: true,
      }),
    );
    if (!Item) throw new NotFoundError(`account ${reading.accountID.slice(0, 64)} not found`);
    return retryRaces<'opened' | 'extended' | 'stale'>(
      async () => {
        const latest = await this.latestRow(reading.accountID, reading.asset);
        const change = applyReading(latest?.period, reading);
        if (change.kind === 'stale') return { done: true, value: 'stale' as const };
        const items = this.transaction(change.period, latest?.version, connectorID, change.kind);
        const committed = await commitUnlessRaced(this.options.doc, items);
        if (!committed) return { done: false };
        return { done: true, value: change.kind === 'open' ? 'opened' : 'extended' } as const;
      },
      {
        maxAttempts: MAX_SAVE_ATTEMPTS,
        ...SAVE_BACKOFF,
        sleep: this.options.sleep,
        busy: 'the balance is being changed concurrently; retry shortly',
      },
    );
  }

  /** An account's balance periods, newest first, optionally one asset's and within [from, to]. */
  async history(
    accountId: string,
    filter: BalanceFilter,
    query: ListQuery,
  ): Promise<Page<Balance>> {
    const { pk } = recordKey(this.options.environment, 'ACCOUNT', accountId);
    requireCursorPartition(query, 'pk', pk);
    const conditions: string[] = [];
    const values: Record<string, unknown> = {
      ':p': pk,
      ':prefix': `${BALANCE_ROW_PREFIX}${filter.asset !== undefined ? `${filter.asset}#` : ''}`,
    };
    if (filter.to !== undefined) {
      conditions.push('startSort <= :to');
      values[':to'] = sortableCreatedAt(filter.to);
    }
    if (filter.from !== undefined) {
      conditions.push('lastSort >= :from');
      values[':from'] = sortableCreatedAt(filter.from);
    }
    return queryPage(
      this.options.doc,
      {
        input: {
          TableName: this.options.table,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :prefix)',
          ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
          ExpressionAttributeValues: values,
          ConsistentRead: true,
        },
        keyAttributes: ['pk', 'sk'],
        list: BALANCES_LIST,
        ascending: false,
        filters: Object.fromEntries(
          Object.entries({ account: accountId, ...filter }).filter(([, v]) => v !== undefined),
        ) as Record<string, string>,
      },
      query,
      periodOf,
    );
  }

  /**
   * Each asset's balance of one account at `at` (the period begun last at or before it), or now when `at` is
   * absent. Assets whose first period began after `at` are absent.
   */
  async balancesAt(accountId: string, at?: string): Promise<Balance[]> {
    const { pk } = recordKey(this.options.environment, 'ACCOUNT', accountId);
    const latest = await this.queryAll({
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':p': pk, ':prefix': LATEST_BALANCE_PREFIX },
    });
    const current = latest.map(periodOf);
    if (at === undefined) return current;
    const bound = sortableCreatedAt(at);
    const found = await Promise.all(
      current.map(async (b) => {
        if (sortableCreatedAt(b.createdAt) <= bound) return b;
        const [row] = await this.queryAll(
          {
            KeyConditionExpression: 'pk = :p AND sk BETWEEN :low AND :high',
            ExpressionAttributeValues: {
              ':p': pk,
              ':low': `${BALANCE_ROW_PREFIX}${b.asset}#`,
              ':high': `${BALANCE_ROW_PREFIX}${b.asset}#${bound}`,
            },
            ScanIndexForward: false,
          },
          1,
        );
        return row ? periodOf(row) : undefined;
      }),
    );
    return found.filter((b): b is Balance => b !== undefined);
  }

  private async queryAll(
    input: Record<string, unknown>,
    limit?: number,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.options.doc.send(
        new QueryCommand({
          TableName: this.options.table,
          ConsistentRead: true,
          ...input,
          ...(limit !== undefined ? { Limit: limit } : {}),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...((page.Items ?? []) as Record<string, unknown>[]));
      start = limit !== undefined && items.length >= limit ? undefined : page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  private async latestRow(
    accountId: string,
    asset: string,
  ): Promise<{ period: Balance; version: number } | undefined> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: latestBalanceKey(this.options.environment, accountId, asset),
        ConsistentRead: true,
      }),
    );
    return Item ? { period: periodOf(Item), version: Number(Item.version) } : undefined;
  }

  private transaction(
    period: Balance,
    version: number | undefined,
    connectorID: string,
    kind: 'open' | 'extend',
  ): TransactItem[] {
    const { table, environment, eventsTable } = this.options;
    const attributes = {
      accountID: period.accountID,
      asset: period.asset,
      balance: period.balance,
      createdAt: period.createdAt,
      lastUpdatedAt: period.lastUpdatedAt,
      startSort: sortableCreatedAt(period.createdAt),
      lastSort: sortableCreatedAt(period.lastUpdatedAt),
    };
    const nextVersion = (version ?? 0) + 1;
    const latest: TransactItem = {
      Put: {
        TableName: table,
        Item: {
          ...latestBalanceKey(environment, period.accountID, period.asset),
          ...attributes,
          version: nextVersion,
        },
        ...(version === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: '#version = :version',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':version': version },
            }),
      },
    };
    const row: TransactItem = {
      Put: {
        TableName: table,
        Item: {
          ...balanceRowKey(environment, period.accountID, period.asset, attributes.startSort),
          ...attributes,
        },
      },
    };
    const items = [latest, row];
    if (kind === 'open') {
      const nowMs = this.options.now();
      const event = outboxRow({
        type: 'payments.saved_balance',
        seed: `payments/${environment}/BALANCE/${period.accountID}/${period.asset}/${nextVersion}`,
        idempotencyKey: `${period.accountID}/${period.asset}/${nextVersion}`,
        date: formatInstant(instantFromMs(nowMs)),
        payload: {
          accountID: period.accountID,
          connectorID,
          provider: providerOf(connectorID),
          asset: period.asset,
          balance: period.balance,
          createdAt: period.createdAt,
          lastUpdatedAt: period.lastUpdatedAt,
        },
        environment,
        nowMs,
        attributes: { recordKind: 'BALANCE', recordId: period.accountID },
      });
      items.push({ Put: { TableName: eventsTable, Item: event } });
    }
    return items;
  }
}

function periodOf(item: Record<string, unknown>): Balance {
  return {
    accountID: String(item.accountID),
    asset: String(item.asset),
    balance: BigInt(String(item.balance)),
    createdAt: String(item.createdAt),
    lastUpdatedAt: String(item.lastUpdatedAt),
  };
}
