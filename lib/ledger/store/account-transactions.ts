import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { ValidationError } from '../../errors/index.js';
import { encodeCursor, type ListQuery, type Page } from '../../pagination/cursor.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { isMovePosition, PairMoves, type PositionedMove } from './pair-moves.js';

export type Role = 'any' | 'source' | 'destination';

/**
 * Ids of the transactions of one account (as source, destination or either), a page at a time, newest first
 * unless `ascending` — INDEX_TRANSACTION_ACCOUNTS without an item per transaction: each of the account's
 * (asset) pairs keeps its moves in commit order (pages plus the volume item's buffer), and the pairs are merged by
 * id. The cursor carries the last id and, per asset, the page to resume in. `before` (v1's `after`) starts
 * below an id; `effectiveBy` (a point in time, sortable) keeps only transactions dated at or before it — moves
 * carry their effective time, so no transaction is read to decide. A page consumes at most MOVES_PER_PAGE moves:
 * when most are left out (a role, a point in time far back) it stops there, short, with a cursor that resumes.
 */
export async function accountTransactionIds(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  address: string,
  role: Role,
  query: ListQuery,
  options: {
    ascending: boolean;
    list: string;
    filters: Record<string, string>;
    before?: number;
    effectiveBy?: string;
  },
): Promise<Page<number>> {
  const resumed = query.cursor ? readPosition(query.cursor.k) : undefined;
  const streams = await pairStreams(doc, table, ledger, address, options.ascending, resumed);
  const bound = resumed?.last ?? options.before;
  const beyond = (id: number) =>
    bound !== undefined && (options.ascending ? id <= bound : id >= bound);

  const heads = new Map<string, PositionedMove | undefined>();
  for (const s of streams) heads.set(s.asset, await nextWithin(s.moves, beyond));
  const ids: number[] = [];
  // Where the next page resumes: the last id handed out (or passed over), and each pair's next move (a pair
  // with none left is dropped).
  const resumeAt = (last: number): ResumePosition => {
    const positions: Record<string, string> = {};
    for (const [asset, head] of heads) if (head) positions[asset] = head.position;
    return { last, positions };
  };
  let cursorAt: ResumePosition | undefined;
  let consumed = 0;
  let stopped = false;
  const step = { ascending: options.ascending, beyond, role, effectiveBy: options.effectiveBy };
  while (ids.length <= query.pageSize) {
    const next = await takeNext(streams, heads, step);
    if (!next) break;
    const { id } = next;
    consumed += next.consumed;
    if (next.matches) {
      ids.push(id);
      if (ids.length === query.pageSize) cursorAt = resumeAt(id);
    }
    if (
      consumed >= MOVES_PER_PAGE &&
      ids.length <= query.pageSize &&
      [...heads.values()].some(Boolean)
    ) {
      stopped = true;
      if (ids.length < query.pageSize) cursorAt = resumeAt(id);
      break;
    }
  }
  return pageOf(ids, query, ids.length > query.pageSize || stopped, cursorAt, options);
}

/** Where a page resumes: the last id handed out (or passed over), and each pair's next move. */
interface ResumePosition {
  last: number;
  positions: Record<string, string>;
}

/**
 * The next id across the pairs' heads (the least ascending, the greatest descending), every head at it moved on:
 * whether one of its moves matches the role and the point in time, and how many moves it consumed. None when
 * every pair is done.
 */
async function takeNext(
  streams: Array<{ asset: string; moves: PairMoves }>,
  heads: Map<string, PositionedMove | undefined>,
  step: {
    ascending: boolean;
    beyond: (id: number) => boolean;
    role: Role;
    effectiveBy: string | undefined;
  },
): Promise<{ id: number; matches: boolean; consumed: number } | undefined> {
  const live = [...heads.values()].filter((m): m is PositionedMove => m !== undefined);
  if (live.length === 0) return undefined;
  const id = live.reduce(
    (best, m) => (step.ascending ? Math.min(best, m.txId) : Math.max(best, m.txId)),
    live[0]!.txId,
  );
  let matches = false;
  let consumed = 0;
  for (const s of streams) {
    const head = heads.get(s.asset);
    if (head?.txId !== id) continue;
    consumed++;
    matches ||=
      (step.role === 'any' || (step.role === 'source' ? head.source : head.destination)) &&
      (step.effectiveBy === undefined || head.at <= step.effectiveBy);
    heads.set(s.asset, await nextWithin(s.moves, step.beyond));
  }
  return { id, matches, consumed };
}

function pageOf(
  ids: number[],
  query: ListQuery,
  hasMore: boolean,
  cursorAt: ResumePosition | undefined,
  options: { list: string; filters: Record<string, string> },
): Page<number> {
  return {
    pageSize: query.pageSize,
    hasMore,
    data: ids.slice(0, query.pageSize),
    ...(hasMore && cursorAt
      ? {
          next: encodeCursor({
            l: options.list,
            p: query.pageSize,
            k: { [LAST]: String(cursorAt.last), ...cursorAt.positions },
            d: 'n',
            f: options.filters,
          }),
        }
      : {}),
  };
}

/** The account's moves per asset, each resuming where the cursor left it (pairs the cursor dropped are done). */
async function pairStreams(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  address: string,
  ascending: boolean,
  resumed: ReturnType<typeof readPosition> | undefined,
): Promise<Array<{ asset: string; moves: PairMoves }>> {
  const { Item: account } = await doc.send(
    new GetCommand({
      TableName: table,
      Key: ledgerKeys.account(ledger, address),
      ConsistentRead: true,
    }),
  );
  const assets = [...((account?.assets as Iterable<string> | undefined) ?? [])];
  if (resumed && Object.keys(resumed.positions).some((asset) => !assets.includes(asset)))
    throw new ValidationError('cursor: not a cursor of this list');
  const volumes = await batchGetInOrder(
    doc,
    table,
    assets.map((asset) => ledgerKeys.volume(ledger, address, asset)),
  );
  return assets
    .filter((asset) => !resumed || asset in resumed.positions)
    .map((asset) => ({
      asset,
      moves: PairMoves.forPair(
        doc,
        table,
        ledger,
        address,
        asset,
        volumes[assets.indexOf(asset)],
        ascending,
        resumed?.positions[asset],
      ),
    }));
}

/** Moves one page may pass over: ~125 move pages per asset at most. */
const MOVES_PER_PAGE = 1000;

const LAST = '#last';

async function nextWithin(
  moves: PairMoves,
  beyond: (id: number) => boolean,
): Promise<PositionedMove | undefined> {
  for (;;) {
    const move = await moves.next();
    if (!move || !beyond(move.txId)) return move;
  }
}

/** A cursor's position: its last id, and per asset a page key. Anything else is a forged cursor. */
function readPosition(k: Record<string, string>): {
  last: number;
  positions: Record<string, string>;
} {
  const { [LAST]: last, ...positions } = k;
  if (
    last === undefined ||
    !/^\d{1,15}$/.test(last) ||
    !Object.values(positions).every(isMovePosition)
  )
    throw new ValidationError('cursor: not a cursor of this list');
  return { last: Number(last), positions };
}
