import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type LedgerRef, ledgerKeys, MOVE_PAGE_PREFIX } from './keys.js';
import { decodeMove, type StoredMove } from './move-codec.js';

/** A move with the page (or buffer) it is in: where a listing resumes. */
export interface PositionedMove extends StoredMove {
  /** Sort key of the move's page; for a buffered move, the page its buffer will be flushed to. */
  position: string;
}

/**
 * A pair's moves one by one in commit order (ascending or descending tx id): its move pages, then the buffer on
 * its volume item (docs/data-model.md, "Moves"). Pages are read lazily, a few at a time, so a caller that
 * stops early reads little. `from` resumes at the page (or buffer) a previous read stopped in.
 */
export class PairMoves {
  private readonly buffered: PositionedMove[];
  private readonly pages: PositionedMove[] = [];
  private pageStart: Record<string, unknown> | undefined;
  private pagesDone = false;
  /** Whether the buffer is still to be read: first when descending, last when ascending. */
  private bufferPending: boolean;
  /** The buffer's page key when the volume item was read: where its moves go once flushed. */
  private readonly bufferPage: string | undefined;
  /** Last id handed out: a buffer seen again as a flushed page never repeats a move. */
  private last: number | undefined;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly partition: string,
    volume: Record<string, unknown> | undefined,
    private readonly ascending: boolean,
    private readonly from?: string,
  ) {
    this.bufferPage = typeof volume?.mvPage === 'string' ? volume.mvPage : undefined;
    const moves = ((volume?.mv as string[] | undefined) ?? []).map((m) => ({
      ...decodeMove(m),
      position: this.bufferPage!,
    }));
    this.buffered = ascending ? moves : moves.reverse();
    // Descending from a page that has been flushed since: the buffer holds only later moves.
    this.bufferPending = ascending || from === undefined || from === this.bufferPage;
  }

  static forPair(
    doc: DynamoDBDocumentClient,
    table: string,
    ledger: LedgerRef,
    account: string,
    asset: string,
    volume: Record<string, unknown> | undefined,
    ascending: boolean,
    from?: string,
  ): PairMoves {
    return new PairMoves(
      doc,
      table,
      ledgerKeys.movePartition(ledger, account, asset),
      volume,
      ascending,
      from,
    );
  }

  /** The next move, or undefined once the pair has no more. */
  async next(): Promise<PositionedMove | undefined> {
    for (;;) {
      const move = await this.take();
      if (!move) return undefined;
      if (
        this.last !== undefined &&
        (this.ascending ? move.txId <= this.last : move.txId >= this.last)
      )
        continue;
      this.last = move.txId;
      return move;
    }
  }

  private async take(): Promise<PositionedMove | undefined> {
    if (!this.ascending && this.bufferPending) {
      const move = this.buffered.shift();
      if (move) return move;
      this.bufferPending = false;
    }
    while (this.pages.length === 0 && !this.pagesDone) await this.readPages();
    if (this.pages.length > 0) return this.pages.shift();
    return this.ascending && this.bufferPending ? this.buffered.shift() : undefined;
  }

  /**
   * A few pages at a time, between the resumed position and the buffer's page (both inclusive: a page seen twice
   * is skipped by id). Nothing beyond the buffer's page: those moves were in the buffer when it was read.
   */
  private async readPages(): Promise<void> {
    const lower = this.ascending ? this.from : undefined;
    const upper = this.ascending ? this.bufferPage : (this.from ?? this.bufferPage);
    const condition =
      lower !== undefined && upper !== undefined
        ? ' AND sk BETWEEN :lo AND :hi'
        : lower !== undefined
          ? ' AND sk >= :lo'
          : upper !== undefined
            ? ' AND sk <= :hi'
            : '';
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: `pk = :p${condition}`,
        ExpressionAttributeValues: {
          ':p': this.partition,
          ...(lower !== undefined ? { ':lo': lower } : {}),
          ...(upper !== undefined ? { ':hi': upper } : {}),
        },
        ScanIndexForward: this.ascending,
        ConsistentRead: true,
        Limit: PAGES_PER_READ,
        ...(this.pageStart ? { ExclusiveStartKey: this.pageStart } : {}),
      }),
    );
    for (const item of result.Items ?? []) {
      const moves = (item.moves as string[]).map((m) => ({
        ...decodeMove(m),
        position: String(item.sk),
      }));
      this.pages.push(...(this.ascending ? moves : moves.reverse()));
    }
    this.pageStart = result.LastEvaluatedKey;
    if (!this.pageStart) this.pagesDone = true;
  }
}

/** Move pages per Query: a listing page of 15 transactions usually needs one or two pages per pair. */
const PAGES_PER_READ = 4;

/** A position a cursor may carry: a page key of this layout, nothing else. */
export const isMovePosition = (value: string) =>
  value.startsWith(MOVE_PAGE_PREFIX) && value.length <= 200;
