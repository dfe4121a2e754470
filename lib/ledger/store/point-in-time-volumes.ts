import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import type { LedgerRecord } from '../domain/change.js';
import type { EffectiveVolume } from '../domain/effective-volumes.js';
import { amountOfAttribute } from './amount-encoding.js';
import { EffectiveVolumeReads, type MoveWithPost } from './effective-volume-reads.js';
import { type LedgerRef, ledgerKeys, MOVE_PAGE_PREFIX } from './keys.js';
import { decodeMove, moveKey } from './move-codec.js';
import { PairMoves } from './pair-moves.js';
import { readTransactions } from './transaction-lookup.js';
import { transactionIn } from './transaction-pages.js';
import { unsettledTransactionItems } from './unsettled-transactions.js';

/**
 * A point in time on one of the two clocks: effective time (a sortable instant: moves with a key at or before
 * it), or insertion (moves of transactions up to the last id inserted by then, see insertion-cut.ts; `near` is
 * that instant, where in-order moves usually are).
 */
export type VolumeCut =
  | { clock: 'effective'; at: string }
  | { clock: 'insertion'; lastTxId: number; near: string };

/**
 * The last move of a pair by a cut: every move (the volume item answers; by insertion time with the newest
 * move's id), none, or one move.
 */
type LastMove =
  | { kind: 'all'; txId?: number }
  | { kind: 'none' }
  | { kind: 'move'; txId: number; at: string };

/** Volumes at a cut, with the id of the pair's last move by then (on the cut's clock). */
export interface VolumeAt extends EffectiveVolume {
  txId?: number;
}

/**
 * Volumes of (account, asset) pairs at a point in time, from the pair's moves (docs/data-model.md, "Point-in-time
 * reads"), without summing history: find the pair's last move by the cut, then its volumes right after it — in
 * commit order for insertion time (the transaction's stored post-commit volumes), by effective time for
 * effective time (the same corrected by late moves, effective-volumes.ts). A pair whose every move is by the cut
 * is answered by its volume item alone.
 *
 * Cost per pair: its volume item (one BatchGetItem for all), then, unless the volume item answers, one or two
 * Queries of one item to find the last move (insertion time: plus the move pages between the page nearest `near`
 * by effective time and the cut — none when transactions are not back-dated), one BatchGetItem for all the
 * transactions found, and for effective time what effective volumes cost (late moves of pairs that have any).
 */
export class PointInTimeVolumes {
  private readonly effective: EffectiveVolumeReads;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {
    this.effective = new EffectiveVolumeReads(doc, tableFor);
  }

  /** Each pair's volumes at the cut, in the order asked; undefined for a pair with no move by then. */
  async of(
    ledger: LedgerRecord,
    pairs: ReadonlyArray<readonly [string, string]>,
    cut: VolumeCut,
  ): Promise<Array<VolumeAt | undefined>> {
    if (pairs.length === 0) return [];
    const table = this.tableFor(ledger.bucket);
    const items = await batchGetInOrder(
      this.doc,
      table,
      pairs.map(([account, asset]) => ledgerKeys.volume(ledger, account, asset)),
    );
    const lasts = await Promise.all(
      pairs.map(([account, asset], i) =>
        cut.clock === 'effective'
          ? this.lastByEffectiveTime(table, ledger, account, asset, items[i], cut.at)
          : this.lastByInsertion(table, ledger, account, asset, items[i], cut.lastTxId, cut.near),
      ),
    );
    const ids = [...new Set(lasts.flatMap((l) => (l.kind === 'move' ? [l.txId] : [])))];
    const found = await readTransactions(this.doc, table, ledger, ids);
    // A transaction of a group commit whose item is not written yet is read from the batch's log page.
    const { items: unsettled } = await unsettledTransactionItems(
      this.doc,
      table,
      ledger,
      ids.filter((id) => !found.has(id)),
    );
    const posts = new Map(
      ids.map((id) => {
        const stored = found.get(id) ?? transactionIn(unsettled.get(id), id);
        if (!stored)
          throw new Error(`transaction ${id} of ledger ${ledger.name} has moves but no item`);
        return [id, stored.post] as const;
      }),
    );
    const moves: Array<MoveWithPost & { index: number }> = [];
    const result: Array<VolumeAt | undefined> = lasts.map((last, i) => {
      const [account, asset] = pairs[i]!;
      if (last.kind === 'all')
        return {
          input: amountOfAttribute(items[i]!.input),
          output: amountOfAttribute(items[i]!.output),
          ...(last.txId !== undefined ? { txId: last.txId } : {}),
        };
      if (last.kind === 'none') return undefined;
      const post = posts.get(last.txId)![account]![asset]!;
      moves.push({
        index: i,
        txId: last.txId,
        at: last.at,
        account,
        asset,
        post: { input: post.input, output: post.output },
      });
      return { input: post.input, output: post.output, txId: last.txId };
    });
    if (cut.clock === 'effective') {
      const effective = await this.effective.ofMoves(ledger, moves);
      moves.forEach((m, j) => {
        result[m.index] = { ...effective[j]!, txId: m.txId };
      });
    }
    return result;
  }

  /**
   * The pair's move with the greatest effective key at or before `at`. In-order moves sort by key in commit order
   * and each page covers keys from its own key (`P#<greatest key when it started>#...`) on, so it is in the last
   * page (or buffer) starting at or before `at` — or, when that page holds none, it is the move whose key started
   * the page. A late move is the greatest of the late-move partition up to `at`. The greater of the two wins.
   */
  private async lastByEffectiveTime(
    table: string,
    ledger: LedgerRef,
    account: string,
    asset: string,
    volume: Record<string, unknown> | undefined,
    at: string,
  ): Promise<LastMove> {
    const lastKey = volume?.lastMoveKey;
    if (typeof lastKey !== 'string') return { kind: 'none' };
    // `<at>#~` sorts after every key `<at>#<id>`: the inclusive bound.
    const bound = `${at}#~`;
    // Every move is by the cut: the last by effective time is the greatest key's (history reads its id).
    if (lastKey <= bound)
      return { kind: 'all', txId: Number(lastKey.slice(lastKey.lastIndexOf('#') + 1)) };
    const pageBound = `${MOVE_PAGE_PREFIX}${bound}`;
    const [pages, lates] = await Promise.all([
      this.lastItem(table, ledgerKeys.movePartition(ledger, account, asset), pageBound),
      Number(volume!.lateMoves ?? 0) > 0
        ? this.lastItem(table, ledgerKeys.lateMovePartition(ledger, account, asset), bound)
        : Promise.resolve(undefined),
    ]);
    const buffer =
      Array.isArray(volume!.mv) && typeof volume!.mvPage === 'string' && volume!.mvPage <= pageBound
        ? { sk: volume!.mvPage, moves: volume!.mv as string[] }
        : undefined;
    const page = pages ? { sk: String(pages.sk), moves: pages.moves as string[] } : undefined;
    // The buffer is the page its moves will be flushed to: the later of the two holds the candidate (the same key
    // means the buffer was flushed between the two reads).
    const last = !buffer
      ? page
      : !page
        ? buffer
        : buffer.sk === page.sk
          ? { sk: page.sk, moves: [...page.moves, ...buffer.moves] }
          : buffer.sk > page.sk
            ? buffer
            : page;
    let inOrder: { key: string; txId: number } | undefined;
    for (const text of last?.moves ?? []) {
      const move = decodeMove(text);
      const key = moveKey(move.at, move.txId);
      if (!move.late && key <= bound && (!inOrder || key > inOrder.key))
        inOrder = { key, txId: move.txId };
    }
    if (!inOrder && last) {
      const started = last.sk.slice(MOVE_PAGE_PREFIX.length, last.sk.lastIndexOf('#'));
      inOrder = { key: started, txId: Number(started.slice(started.lastIndexOf('#') + 1)) };
    }
    const late = lates ? { key: String(lates.sk), txId: Number(lates.txId) } : undefined;
    const chosen = !late ? inOrder : !inOrder || late.key > inOrder.key ? late : inOrder;
    return chosen
      ? { kind: 'move', txId: chosen.txId, at: chosen.key.slice(0, chosen.key.indexOf('#')) }
      : { kind: 'none' };
  }

  /**
   * The pair's last move in commit order with an id at most `lastTxId`. Pages are in commit order but keyed by
   * effective time, so the walk starts at the page nearest `near` by effective time (where it is unless
   * transactions were back- or forward-dated) and goes forwards or backwards from there.
   */
  private async lastByInsertion(
    table: string,
    ledger: LedgerRef,
    account: string,
    asset: string,
    volume: Record<string, unknown> | undefined,
    lastTxId: number,
    near: string,
  ): Promise<LastMove> {
    if (!volume) return { kind: 'none' };
    const buffered = ((volume.mv as string[] | undefined) ?? []).map(decodeMove);
    // The buffer ends with the pair's newest move.
    const newest = buffered[buffered.length - 1];
    if (newest && newest.txId <= lastTxId) return { kind: 'all', txId: newest.txId };
    const pivot = (
      await this.lastItem(
        table,
        ledgerKeys.movePartition(ledger, account, asset),
        `${MOVE_PAGE_PREFIX}${near}#~`,
        'sk',
      )
    )?.sk as string | undefined;
    const forwards =
      pivot === undefined || Number(pivot.slice(pivot.lastIndexOf('#') + 1)) <= lastTxId;
    const moves = PairMoves.forPair(
      this.doc,
      table,
      ledger,
      account,
      asset,
      volume,
      forwards,
      pivot,
    );
    let found: { txId: number; at: string } | undefined;
    for (;;) {
      const move = await moves.next();
      if (!move) break;
      if (forwards) {
        if (move.txId > lastTxId) break;
        found = move;
      } else if (move.txId <= lastTxId) {
        found = move;
        break;
      }
    }
    return found ? { kind: 'move', txId: found.txId, at: found.at } : { kind: 'none' };
  }

  /** The item with the greatest sort key at most `upTo` in a partition (one Query of one item). */
  private async lastItem(
    table: string,
    pk: string,
    upTo: string,
    projection?: string,
  ): Promise<Record<string, unknown> | undefined> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p AND sk <= :s',
        ExpressionAttributeValues: { ':p': pk, ':s': upTo },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
        ...(projection ? { ProjectionExpression: projection } : {}),
      }),
    );
    return Items?.[0] as Record<string, unknown> | undefined;
  }
}
