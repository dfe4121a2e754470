import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  type HistoryMove,
  type HistoryPoint,
  type HistoryState,
  HistoryWalk,
  microsToSortable,
  sortableToMicros,
} from '../domain/balance-history.js';
import type { LedgerRecord } from '../domain/change.js';
import { ledgerKeys, MOVE_PAGE_PREFIX } from './keys.js';
import { moveKey } from './move-codec.js';
import { PairMoves } from './pair-moves.js';
import { PointInTimeVolumes } from './point-in-time-volumes.js';

/** Moves read per page beyond its points: what a sampled page may pass over between two samples. */
export const HISTORY_GAP_MOVES = 1000;

/** Where a history page resumes: the walk's state, the last move consumed, the in-order moves' page. */
export interface HistoryResume {
  state: HistoryState;
  /** Key of the last move consumed (or the bare `from` instant, which sorts before its moves). */
  lastKey: string;
  /** Page (or buffer) of the pair's in-order moves to read from; none: the first. */
  position?: string;
}

export interface HistoryRequest {
  /** Sortable instants; `from` absent: from the first move. */
  from?: string;
  to: string;
  intervalMicros?: bigint;
  pageSize: number;
  resume?: HistoryResume;
}

/**
 * A pair's balance history (docs/decisions/ledger.md, "Balance history"): the opening volumes are the point-in-time read
 * just before `from`, then its moves in effective order — in-order moves from its move pages and buffer (commit
 * order is key order for them) merged with its late-move partition — walked by the pure HistoryWalk. Reads per
 * page: the volume item, at most `pageSize` + HISTORY_GAP_MOVES moves, and on a first page the opening read.
 */
export class BalanceHistoryReads {
  private readonly pointInTime: PointInTimeVolumes;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableFor: (bucket: string) => string,
  ) {
    this.pointInTime = new PointInTimeVolumes(doc, tableFor);
  }

  async page(
    ledger: LedgerRecord,
    account: string,
    asset: string,
    request: HistoryRequest,
  ): Promise<{ points: HistoryPoint[]; next?: HistoryResume }> {
    const table = this.tableFor(ledger.bucket);
    const { Item: volume } = await this.doc.send(
      new GetCommand({
        TableName: table,
        Key: ledgerKeys.volume(ledger, account, asset),
        ConsistentRead: true,
      }),
    );
    if (!volume) return { points: [] };
    const resume = request.resume ?? (await this.start(ledger, account, asset, request));
    const walk = new HistoryWalk(
      resume.state,
      {
        to: request.to,
        ...(request.intervalMicros ? { intervalMicros: request.intervalMicros } : {}),
      },
      request.pageSize,
    );
    const moves = new MergedMoves(
      PairMoves.forPair(this.doc, table, ledger, account, asset, volume, true, resume.position),
      new LateMoves(this.doc, table, ledgerKeys.lateMovePartition(ledger, account, asset)),
      resume.lastKey,
    );
    let { lastKey, position } = resume;
    let budget = request.pageSize + HISTORY_GAP_MOVES;
    for (;;) {
      const move = await moves.peek();
      if (!move || !walk.inBounds(move)) {
        walk.finish();
        const more = request.intervalMicros !== undefined && walk.samplesLeft();
        return {
          points: walk.points,
          ...(more
            ? { next: { state: walk.position, lastKey, ...(position ? { position } : {}) } }
            : {}),
        };
      }
      if (budget-- === 0 || !walk.feed(move)) break;
      moves.take();
      lastKey = move.key;
      if (move.position !== undefined) position = move.position;
    }
    return {
      points: walk.points,
      next: { state: walk.position, lastKey, ...(position ? { position } : {}) },
    };
  }

  /** The first page's resume point: the volumes just before `from` and the in-order page that may hold it. */
  private async start(
    ledger: LedgerRecord,
    account: string,
    asset: string,
    request: HistoryRequest,
  ): Promise<HistoryResume> {
    const { from } = request;
    if (from === undefined) return { state: { input: 0n, output: 0n }, lastKey: '' };
    const fromMicros = sortableToMicros(from);
    const [opening] = await this.pointInTime.of(ledger, [[account, asset]], {
      clock: 'effective',
      at: microsToSortable(fromMicros - 1n),
    });
    // In-order moves dated from `from` are in pages starting at or after it, or in the last page before.
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableFor(ledger.bucket),
        KeyConditionExpression: 'pk = :p AND sk < :lo',
        ExpressionAttributeValues: {
          ':p': ledgerKeys.movePartition(ledger, account, asset),
          ':lo': `${MOVE_PAGE_PREFIX}${from}`,
        },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
        ProjectionExpression: 'sk',
      }),
    );
    const position = Items[0] ? String(Items[0].sk) : undefined;
    return {
      state: {
        input: opening?.input ?? 0n,
        output: opening?.output ?? 0n,
        ...(opening?.txId !== undefined ? { txId: opening.txId } : {}),
        ...(request.intervalMicros !== undefined ? { nextSampleMicros: fromMicros } : {}),
      },
      lastKey: from,
      ...(position ? { position } : {}),
    };
  }
}

type PositionedHistoryMove = HistoryMove & { position?: string };

/**
 * The pair's moves after a key, in key order: its in-order moves (late ones skipped: they are read from the
 * late-move partition, by their own key) merged with its late moves.
 */
class MergedMoves {
  private inOrder: PositionedHistoryMove | undefined | null = null;
  private late: PositionedHistoryMove | undefined | null = null;

  constructor(
    private readonly pages: PairMoves,
    private readonly lates: LateMoves,
    private readonly after: string,
  ) {}

  async peek(): Promise<PositionedHistoryMove | undefined> {
    if (this.inOrder === null) this.inOrder = await this.nextInOrder();
    if (this.late === null) this.late = await this.lates.next(this.after);
    if (!this.inOrder) return this.late;
    if (!this.late) return this.inOrder;
    return this.late.key < this.inOrder.key ? this.late : this.inOrder;
  }

  /** Consumes what peek answered. */
  take(): void {
    if (this.inOrder && (!this.late || this.inOrder.key < this.late.key)) this.inOrder = null;
    else this.late = null;
  }

  private async nextInOrder(): Promise<PositionedHistoryMove | undefined> {
    for (;;) {
      const move = await this.pages.next();
      if (!move) return undefined;
      const key = moveKey(move.at, move.txId);
      if (move.late || key <= this.after) continue;
      const { txId, input, output, position } = move;
      return { key, txId, input, output, position };
    }
  }
}

/** Late moves read a few at a time, in key order. */
class LateMoves {
  private readonly buffered: HistoryMove[] = [];
  private start: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly partition: string,
  ) {}

  async next(after: string): Promise<HistoryMove | undefined> {
    while (this.buffered.length === 0 && !this.done) {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          // An empty bound (no `from`) is no bound: DynamoDB refuses an empty key value.
          KeyConditionExpression: after === '' ? 'pk = :p' : 'pk = :p AND sk > :lo',
          ExpressionAttributeValues: {
            ':p': this.partition,
            ...(after === '' ? {} : { ':lo': after }),
          },
          ProjectionExpression: 'sk, txId, #i, #o',
          ExpressionAttributeNames: { '#i': 'input', '#o': 'output' },
          ConsistentRead: true,
          Limit: 100,
          ...(this.start ? { ExclusiveStartKey: this.start } : {}),
        }),
      );
      for (const item of result.Items ?? [])
        this.buffered.push({
          key: String(item.sk),
          txId: Number(item.txId),
          input: BigInt(item.input as bigint),
          output: BigInt(item.output as bigint),
        });
      this.start = result.LastEvaluatedKey;
      if (!this.start) this.done = true;
    }
    return this.buffered.shift();
  }
}
