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
  // A `previous` cursor reads the other way from the page it came from, then hands its ids back in list order.
  const backwards = query.cursor?.d === 'p';
  const ascending = backwards ? !options.ascending : options.ascending;
  const streams = await pairStreams(doc, table, ledger, address, ascending, resumed);
  const bound = resumed?.last ?? options.before;
  const beyond = (id: number) => bound !== undefined && (ascending ? id <= bound : id >= bound);

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
  const step = { ascending, beyond, role, effectiveBy: options.effectiveBy };
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
  const more = ids.length > query.pageSize || stopped;
  return pageOf(
    ids,
    query,
    { more, backwards, bound, ascending: options.ascending },
    cursorAt,
    options,
  );
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

/**
 * The page in list order and its cursors. Going forwards, `next` resumes at the recorded positions and `previous`
 * (any page but the first) reads back from the page's first id. Going backwards (from a `previous` cursor), the
 * ids read are the list's in reverse: `previous` resumes that reading, `next` goes forwards from the page's last id.
 * A cursor without positions starts every pair afresh and passes over what is beyond its id.
 */
function pageOf(
  read: number[],
  query: ListQuery,
  how: { more: boolean; backwards: boolean; bound: number | undefined; ascending: boolean },
  cursorAt: ResumePosition | undefined,
  options: { list: string; filters: Record<string, string> },
): Page<number> {
  const data = read.slice(0, query.pageSize);
  if (how.backwards) data.reverse();
  const make = (d: 'n' | 'p', k: Record<string, string>) =>
    encodeCursor({ l: options.list, p: query.pageSize, k, d, f: options.filters });
  const at = (id: number) => ({ [LAST]: String(id) });
  const resume = cursorAt && { [LAST]: String(cursorAt.last), ...cursorAt.positions };
  if (how.backwards) {
    // Forwards again from the page's last id (from just past the cursor's own when the page is empty).
    const last = data[data.length - 1] ?? (how.ascending ? how.bound! - 1 : how.bound! + 1);
    return {
      pageSize: query.pageSize,
      hasMore: true,
      data,
      next: make('n', at(last)),
      ...(how.more && resume ? { previous: make('p', resume) } : {}),
    };
  }
  return {
    pageSize: query.pageSize,
    hasMore: how.more,
    data,
    ...(how.more && resume ? { next: make('n', resume) } : {}),
    ...(query.cursor && data.length > 0 ? { previous: make('p', at(data[0]!)) } : {}),
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
  // A cursor with positions resumes the pairs it names (the others are done); one without starts them all.
  const fresh = !resumed || Object.keys(resumed.positions).length === 0;
  return assets
    .filter((asset) => fresh || asset in resumed.positions)
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
