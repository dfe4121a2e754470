import { paginateQuery, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { effectiveAfter, type MoveRecord, type RecordedMove } from '../domain/effective-volumes.js';
import { touchedPairs } from '../domain/postings.js';
import type { Transaction, VolumesView } from '../domain/transaction.js';
import { ledgerKeys } from './keys.js';
import type { LedgerRecord } from './registry.js';

const pairId = (account: string, asset: string) => `${account}\u0000${asset}`;

/**
 * Reads effective volumes (see lib/ledger/domain/effective-volumes.ts): one BatchGetItem for the moves and
 * volume items involved, then one Query per pair that has late moves and one per late move read. Strongly
 * consistent, like every ledger read.
 */
export class EffectiveVolumeReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /** Post-commit effective volumes of each transaction, by id. */
  async ofTransactions(ledger: LedgerRecord, transactions: readonly Transaction[]): Promise<Map<number, VolumesView>> {
    const table = this.tableFor(ledger.bucket);
    const wanted = transactions.flatMap((tx) => {
      const at = sortableInstant(parseInstant(tx.timestamp, 'timestamp'));
      return touchedPairs(tx.postings).map(([account, asset]) => ({ tx, account, asset, key: ledgerKeys.move(ledger.name, account, asset, at, tx.id) }));
    });
    const moves = await this.resolve(table, ledger.name, wanted.map((w) => ({ account: w.account, asset: w.asset, move: w.key })));
    const result = new Map<number, VolumesView>();
    wanted.forEach((w, i) => {
      const volume = moves[i];
      if (!volume) throw new Error(`ledger ${ledger.name}: no move recorded for transaction ${w.tx.id} on ${w.account}/${w.asset}`);
      const view = result.get(w.tx.id) ?? {};
      (view[w.account] ??= {})[w.asset] = { input: volume.input, output: volume.output, balance: volume.input - volume.output };
      result.set(w.tx.id, view);
    });
    return result;
  }

  /** Effective volumes right after each given move (undefined where the move does not exist). */
  private async resolve(
    table: string,
    ledger: string,
    wanted: ReadonlyArray<{ account: string; asset: string; move: { pk: string; sk: string } }>,
  ): Promise<Array<{ input: bigint; output: bigint } | undefined>> {
    if (wanted.length === 0) return [];
    const pairs = new Map(wanted.map((w) => [pairId(w.account, w.asset), w]));
    const volumeKeys = [...pairs.values()].map((w) => ledgerKeys.volume(ledger, w.account, w.asset));
    const items = await batchGetInOrder(this.doc, table, [...wanted.map((w) => w.move), ...volumeKeys]);
    const moveItems = items.slice(0, wanted.length);
    const volumeItems = new Map([...pairs.keys()].map((id, i) => [id, items[wanted.length + i]]));

    // Late moves per pair, once for the page, up to the greatest key asked for.
    const lateByPair = new Map<string, MoveRecord[]>();
    await Promise.all(
      [...pairs.entries()].map(async ([id, w]) => {
        if (Number(volumeItems.get(id)?.lateMoves ?? 0) === 0) return;
        const upTo = wanted.filter((x) => pairId(x.account, x.asset) === id).reduce((max, x) => (x.move.sk > max ? x.move.sk : max), '');
        lateByPair.set(id, await this.moves(table, ledgerKeys.lateMovePartition(ledger, w.account, w.asset), { to: upTo }));
      }),
    );

    return Promise.all(
      wanted.map(async (w, i) => {
        const item = moveItems[i];
        if (!item) return undefined;
        const move = recordedMove(item);
        const overtaken = move.lateOf !== undefined ? await this.moves(table, w.move.pk, { from: move.key, to: move.lateOf }) : [];
        return effectiveAfter(move, lateByPair.get(pairId(w.account, w.asset)) ?? [], overtaken);
      }),
    );
  }

  /** Every move of a partition with a key in [from, to] (both optional). */
  private async moves(table: string, partition: string, range: { from?: string; to?: string }): Promise<MoveRecord[]> {
    const condition = range.from !== undefined && range.to !== undefined ? 'sk BETWEEN :from AND :to' : range.from !== undefined ? 'sk >= :from' : range.to !== undefined ? 'sk <= :to' : undefined;
    const out: MoveRecord[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: table,
        KeyConditionExpression: `pk = :p${condition ? ` AND ${condition}` : ''}`,
        ExpressionAttributeValues: { ':p': partition, ...(range.from !== undefined ? { ':from': range.from } : {}), ...(range.to !== undefined ? { ':to': range.to } : {}) },
        ProjectionExpression: 'sk, txId, #i, #o',
        ExpressionAttributeNames: { '#i': 'input', '#o': 'output' },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) out.push({ key: String(item.sk), txId: Number(item.txId), input: BigInt(item.input as bigint), output: BigInt(item.output as bigint) });
    }
    return out;
  }
}

function recordedMove(item: Record<string, unknown>): RecordedMove {
  return {
    key: String(item.sk),
    txId: Number(item.txId),
    input: BigInt(item.input as bigint),
    output: BigInt(item.output as bigint),
    postInput: BigInt(item.postInput as bigint),
    postOutput: BigInt(item.postOutput as bigint),
    ...(typeof item.lateOf === 'string' ? { lateOf: item.lateOf } : {}),
  };
}
