import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { LedgerRecord } from '../domain/change.js';
import {
  type EffectiveVolume,
  effectiveAfter,
  type MoveRecord,
  type RecordedMove,
} from '../domain/effective-volumes.js';
import { touchedPairs } from '../domain/postings.js';
import type { VolumesView } from '../domain/transaction.js';
import { ledgerKeys } from './keys.js';
import { moveKey } from './move-codec.js';
import { lateMoves, movesInRange } from './moves-in-range.js';
import type { StoredTransaction } from './transaction-pages.js';

const pairId = (account: string, asset: string) => `${account}\u0000${asset}`;

/** A pair's move (transaction id, sortable effective time) with the pair's volumes right after it in commit order. */
export interface MoveWithPost {
  txId: number;
  at: string;
  account: string;
  asset: string;
  post: { input: bigint; output: bigint };
}

/**
 * Reads effective volumes (see lib/ledger/domain/effective-volumes.ts): a transaction's commit-order volumes
 * come with it; one BatchGetItem reads its pairs' volume items and late-move copies, then one Query per pair
 * that has late moves, and for a late move the moves it overtook. Strongly consistent, like every ledger read.
 */
export class EffectiveVolumeReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {}

  /** Post-commit effective volumes of each transaction, by id. */
  async ofTransactions(
    ledger: LedgerRecord,
    transactions: readonly StoredTransaction[],
  ): Promise<Map<number, VolumesView>> {
    const wanted = transactions.flatMap(({ tx, post }) => {
      const at = sortableInstant(parseInstant(tx.timestamp, 'timestamp'));
      return touchedPairs(tx.postings).map(([account, asset]) => ({
        txId: tx.id,
        account,
        asset,
        at,
        post: post[account]![asset]!,
      }));
    });
    const volumes = await this.ofMoves(ledger, wanted);
    const result = new Map<number, VolumesView>();
    wanted.forEach((w, i) => {
      const volume = volumes[i]!;
      const view = result.get(w.txId) ?? {};
      view[w.account] ??= {};
      view[w.account]![w.asset] = {
        input: volume.input,
        output: volume.output,
        balance: volume.input - volume.output,
      };
      result.set(w.txId, view);
    });
    return result;
  }

  /**
   * Effective volumes of pairs right after given moves, each with its commit-order volumes (`post`): those of
   * transactions, or of the last move at a point in time (point-in-time-volumes.ts).
   */
  async ofMoves(ledger: LedgerRecord, wanted: readonly MoveWithPost[]): Promise<EffectiveVolume[]> {
    if (wanted.length === 0) return [];
    const table = this.tableFor(ledger.bucket);
    const pairs = new Map(wanted.map((w) => [pairId(w.account, w.asset), w]));
    const lateKeys = wanted.map((w) =>
      ledgerKeys.lateMove(ledger, w.account, w.asset, w.at, w.txId),
    );
    const volumeKeys = [...pairs.values()].map((w) =>
      ledgerKeys.volume(ledger, w.account, w.asset),
    );
    const items = await batchGetInOrder(this.doc, table, [...lateKeys, ...volumeKeys]);
    const volumeItems = new Map([...pairs.keys()].map((id, i) => [id, items[wanted.length + i]]));

    // Late moves per pair, once for the page, up to the greatest key asked for.
    const lateByPair = new Map<string, MoveRecord[]>();
    await Promise.all(
      [...pairs.entries()].map(async ([id, w]) => {
        if (Number(volumeItems.get(id)?.lateMoves ?? 0) === 0) return;
        const upTo = wanted
          .filter((x) => pairId(x.account, x.asset) === id)
          .map((x) => moveKey(x.at, x.txId))
          // biome-ignore lint/complexity/useMathMinMax: these are strings (sort keys), not numbers
          .reduce((max, key) => (key > max ? key : max), '');
        lateByPair.set(
          id,
          await lateMoves(
            this.doc,
            table,
            ledgerKeys.lateMovePartition(ledger, w.account, w.asset),
            { upper: { key: upTo, inclusive: true } },
          ),
        );
      }),
    );

    return Promise.all(
      wanted.map(async (w, i) => {
        const key = moveKey(w.at, w.txId);
        const lateOf = items[i]?.lateOf;
        const move: RecordedMove = {
          key,
          txId: w.txId,
          input: 0n,
          output: 0n,
          postInput: w.post.input,
          postOutput: w.post.output,
          ...(typeof lateOf === 'string' ? { lateOf } : {}),
        };
        const overtaken =
          move.lateOf !== undefined
            ? await movesInRange(
                this.doc,
                table,
                ledger,
                w.account,
                w.asset,
                volumeItems.get(pairId(w.account, w.asset)),
                { lower: { key, inclusive: false }, upper: { key: move.lateOf, inclusive: true } },
              )
            : [];
        return effectiveAfter(move, lateByPair.get(pairId(w.account, w.asset)) ?? [], overtaken);
      }),
    );
  }
}
