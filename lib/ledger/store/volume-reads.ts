import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { movesInRange } from './moves-in-range.js';
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
    const volumes = await batchGetInOrder(this.doc, table, pairs.map(([account, asset]) => ledgerKeys.volume(ledger, account, asset)));
    const rows = await Promise.all(pairs.map(([account, asset], i) => this.movedInWindow(table, ledger, account, asset, volumes[i], window)));
    return rows.filter((r): r is VolumeRow => r !== undefined);
  }

  private async movedInWindow(table: string, ledger: string, account: string, asset: string, volume: Record<string, unknown> | undefined, window: Window): Promise<VolumeRow | undefined> {
    // Window bounds are bare times: `<from>` sorts before all moves at from, `<to>` before all at to — an
    // inclusive start and an exclusive end.
    const moves = await movesInRange(this.doc, table, ledger, account, asset, volume, {
      ...(window.from ? { lower: { key: window.from, inclusive: true } } : {}),
      ...(window.to ? { upper: { key: window.to, inclusive: false } } : {}),
    });
    if (moves.length === 0) return undefined;
    const input = moves.reduce((sum, m) => sum + m.input, 0n);
    const output = moves.reduce((sum, m) => sum + m.output, 0n);
    return { account, asset, input, output, balance: input - output };
  }
}
