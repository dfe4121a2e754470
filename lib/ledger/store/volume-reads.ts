import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPage } from '../../dynamo/paginate.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import type { AddressFilter } from '../domain/account-filter.js';
import type { AccountRecord } from '../domain/account.js';
import { accountIndexQuery, readVolumes, toAccountRecord } from './account-items.js';
import { ledgerKeys } from './keys.js';
import type { LedgerRecord } from './registry.js';

export interface VolumeRow {
  account: string;
  asset: string;
  input: bigint;
  output: bigint;
  balance: bigint;
}

/** A window on effective time, as sortable instants; `from` inclusive, `to` exclusive. */
export interface Window {
  from?: string;
  to?: string;
}

/**
 * GET /v2/<ledger>/volumes: one row per (account, asset), paged by account (address ascending, gsi1). Without
 * a window, the current volume items. With one (MOVES_HISTORY), the sum of the pair's moves whose effective
 * time falls in it — one Query per pair over its own key range, so the cost is bounded by the page. Pairs that
 * did not move in the window are left out, so a page can hold fewer rows than accounts.
 */
export class VolumeReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  async list(ledger: LedgerRecord, query: ListQuery, filter: AddressFilter | undefined, window: Window | undefined, recorded: Record<string, string>): Promise<Page<VolumeRow>> {
    const table = this.tableFor(ledger.bucket);
    const page = await queryPage(
      this.doc,
      {
        input: accountIndexQuery(table, ledger.name, filter),
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        list: `ledger.volumes.${ledger.name}`,
        ascending: true,
        filters: recorded,
      },
      query,
      toAccountRecord,
    );
    const rows = window ? await this.windowRows(table, ledger.name, page.data, window) : await this.currentRows(table, ledger.name, page.data);
    return { ...page, data: rows };
  }

  private async currentRows(table: string, ledger: string, accounts: AccountRecord[]): Promise<VolumeRow[]> {
    const volumes = await readVolumes(this.doc, table, ledger, accounts);
    return accounts.flatMap((a) =>
      Object.entries(volumes.get(a.address) ?? {})
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([asset, v]) => ({ account: a.address, asset, input: v.input, output: v.output, balance: v.balance })),
    );
  }

  private async windowRows(table: string, ledger: string, accounts: AccountRecord[], window: Window): Promise<VolumeRow[]> {
    const pairs = accounts.flatMap((a) => [...a.assets].sort().map((asset) => [a.address, asset] as const));
    const rows = await Promise.all(pairs.map(([account, asset]) => this.movedInWindow(table, ledger, account, asset, window)));
    return rows.filter((r): r is VolumeRow => r !== undefined);
  }

  private async movedInWindow(table: string, ledger: string, account: string, asset: string, window: Window): Promise<VolumeRow | undefined> {
    // Move keys are `<sortable time>#<id>`: `<t>` sorts before all moves at t, so `>= from` keeps them and
    // `< to` drops them — an inclusive start and an exclusive end.
    const conditions = ['pk = :p', ...(window.from && window.to ? ['sk BETWEEN :from AND :to'] : window.from ? ['sk >= :from'] : window.to ? ['sk < :to'] : [])];
    const values: Record<string, string> = { ':p': ledgerKeys.movePartition(ledger, account, asset) };
    if (window.from) values[':from'] = window.from;
    // BETWEEN is inclusive, but no move key equals `<to>` itself (keys are `<to>#<id>`, which sort after it).
    if (window.to) values[':to'] = window.to;
    let input = 0n;
    let output = 0n;
    let moved = false;
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: conditions.join(' AND '),
          ExpressionAttributeValues: values,
          ProjectionExpression: '#i, #o',
          ExpressionAttributeNames: { '#i': 'input', '#o': 'output' },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of result.Items ?? []) {
        input += BigInt(item.input as bigint);
        output += BigInt(item.output as bigint);
        moved = true;
      }
      start = result.LastEvaluatedKey;
    } while (start);
    return moved ? { account, asset, input, output, balance: input - output } : undefined;
  }
}
