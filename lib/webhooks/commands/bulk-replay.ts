import { ValidationError } from '../../errors/index.js';
import { decodeCursor, encodeCursor } from '../../pagination/cursor.js';
import {
  formatInstant,
  type Instant,
  instantFromMs,
  parseInstant,
  sortableInstant,
} from '../../time/instant.js';
import type { Delivery, DeliveryStatus } from '../domain/delivery.js';
import type { DeliveryStore } from '../store/delivery-store.js';

/**
 * POST /deliveries/replay (the official SDK's `replayDeliveries`, the reference platform's bulk replay): the
 * `failed` deliveries created in [createdAtFrom, createdAtTo] are replayed (as POST /deliveries/<id>/replay does)
 * and the `pending` ones expedited (their next attempt brought forward to now), page by page.
 */

/** Deliveries decided per request: each costs a conditional write and a queue message, and no request does unbounded work. */
export const MAX_REPLAY_PAGE = 100;
/** The reference's bound on one bulk replay's window. */
export const MAX_REPLAY_WINDOW_MS = 90 * 24 * 3600_000;
export const MAX_REPLAY_CONFIG_IDS = 100;
const LIST = 'webhooks.replay';
/** Pending first: a failed delivery replayed on this run moves to `pending` behind the walk, never expedited too. */
const STATUS_ORDER: readonly ReplayableStatus[] = ['pending', 'failed'];

export type ReplayableStatus = Extract<DeliveryStatus, 'failed' | 'pending'>;

/** A bulk replay's request, as the routes' schema (`routes/schemas.ts`) checks it. */
export interface ReplayDeliveriesBody {
  /** RFC 3339. */
  createdAtFrom: string;
  /** RFC 3339; now when absent. */
  createdAtTo?: string | undefined;
  statuses?: ReplayableStatus[] | undefined;
  configIds?: string[] | undefined;
  cursor?: string | undefined;
  pageSize?: number | undefined;
}

export interface ReplayDeliveriesResult {
  replayed: number;
  expedited: number;
  skipped: number;
  hasMore: boolean;
  nextCursor?: string;
  createdAtTo: string;
}

export interface BulkReplayDeps {
  deliveries: Pick<DeliveryStore, 'idsInFilter' | 'getMany'>;
  /** Whether deliveries of this config may be sent again (it exists and is active). */
  configActive: (configId: string) => Promise<boolean>;
  /** Replays one finished delivery (reopen + queue message); false when it changed meanwhile. */
  replay: (delivery: Delivery) => Promise<boolean>;
  /** Expedites one pending delivery (bring forward + queue message); false when it could not be. */
  expedite: (delivery: Delivery) => Promise<boolean>;
  now: () => number;
}

/** Concurrent decisions within a page. */
const CONCURRENCY = 10;

export async function replayDeliveries(
  body: ReplayDeliveriesBody,
  deps: BulkReplayDeps,
): Promise<ReplayDeliveriesResult> {
  const walk = walkOf(body, deps.now);
  const pageSize = Math.min(body.pageSize ?? MAX_REPLAY_PAGE, MAX_REPLAY_PAGE);
  const result: ReplayDeliveriesResult = {
    replayed: 0,
    expedited: 0,
    skipped: 0,
    hasMore: false,
    createdAtTo: walk.to,
  };
  const isActive = onceEach(deps.configActive);
  let { partitionIndex, after } = walk;
  let decided = 0;
  while (partitionIndex < walk.partitions.length && decided < pageSize) {
    const page = await deps.deliveries.idsInFilter(
      walk.partitions[partitionIndex]!,
      sortableInstant(walk.from),
      sortableInstant(walk.toInstant),
      after,
      pageSize - decided,
    );
    const found = await deps.deliveries.getMany(page.ids);
    decided += page.ids.length;
    result.skipped += page.ids.length - found.length;
    await decideEach(found, isActive, deps, result);
    if (page.last !== undefined) after = page.last;
    else {
      partitionIndex++;
      after = undefined;
    }
  }
  if (partitionIndex < walk.partitions.length) {
    result.hasMore = true;
    result.nextCursor = encodeCursor({
      l: LIST,
      p: pageSize,
      d: 'n',
      k: { i: String(partitionIndex), s: after ?? '' },
      f: { ...walk.filters, createdAtTo: walk.to },
    });
  }
  return result;
}

/** Where a replay walks: its window, its filter index partitions, and where in them this request starts. */
interface ReplayWalk {
  from: Instant;
  to: string;
  toInstant: Instant;
  /** The request as a cursor remembers it: a cursor only continues the request it came from. */
  filters: { createdAtFrom: string; statuses: string; configIds: string };
  /** One filter index partition per status, or per status and config. */
  partitions: Array<{ status: ReplayableStatus; configId?: string }>;
  partitionIndex: number;
  after: string | undefined;
}

/** The request's walk, from its cursor when it has one; refuses a cursor of another request and a bad window. */
function walkOf(body: ReplayDeliveriesBody, now: () => number): ReplayWalk {
  const from = parseInstant(body.createdAtFrom, 'createdAtFrom');
  const statuses = STATUS_ORDER.filter((s) =>
    body.statuses?.length ? body.statuses.includes(s) : true,
  );
  const configIds = [...new Set(body.configIds ?? [])].sort();
  const filters = {
    createdAtFrom: body.createdAtFrom,
    statuses: statuses.join(','),
    configIds: configIds.join(','),
  };
  const position = positionOf(body, filters, now);
  const toInstant = parseInstant(position.to, 'createdAtTo');
  if (toInstant.ms < from.ms || toInstant.ms - from.ms > MAX_REPLAY_WINDOW_MS) {
    throw new ValidationError(
      'createdAtFrom: the window up to createdAtTo must be positive and at most 90 days',
    );
  }
  const partitions = statuses.flatMap((status) =>
    configIds.length ? configIds.map((configId) => ({ configId, status })) : [{ status }],
  );
  const { partitionIndex } = position;
  if (!Number.isInteger(partitionIndex) || partitionIndex < 0 || partitionIndex > partitions.length)
    throw new ValidationError('cursor: not a cursor of this list');
  return { from, toInstant, filters, partitions, ...position };
}

/** The window's end and the walk's position: the cursor's, or the start of a new walk. */
function positionOf(
  body: ReplayDeliveriesBody,
  filters: ReplayWalk['filters'],
  now: () => number,
): Pick<ReplayWalk, 'to' | 'partitionIndex' | 'after'> {
  if (body.cursor === undefined) {
    // Without an end, the window ends now, fixed for every page of this replay (new deliveries are not chased).
    return {
      to: body.createdAtTo ?? formatInstant(instantFromMs(now())),
      partitionIndex: 0,
      after: undefined,
    };
  }
  const cursor = decodeCursor(body.cursor, LIST);
  const f = cursor.f ?? {};
  if (
    f.createdAtFrom !== filters.createdAtFrom ||
    f.statuses !== filters.statuses ||
    f.configIds !== filters.configIds ||
    (body.createdAtTo !== undefined && body.createdAtTo !== f.createdAtTo)
  ) {
    throw new ValidationError(
      'cursor: does not match the request (createdAtFrom, createdAtTo, statuses, configIds)',
    );
  }
  return { to: f.createdAtTo!, partitionIndex: Number(cursor.k.i), after: cursor.k.s || undefined };
}

/** Asks once per config whether it is active, however many of its deliveries a page holds. */
function onceEach(configActive: (configId: string) => Promise<boolean>) {
  const active = new Map<string, Promise<boolean>>();
  return (configId: string): Promise<boolean> => {
    let known = active.get(configId);
    if (!known) {
      known = configActive(configId);
      active.set(configId, known);
    }
    return known;
  };
}

/** Replays the failed deliveries and expedites the pending ones, CONCURRENCY at a time, counting each in `result`. */
async function decideEach(
  found: readonly Delivery[],
  isActive: (configId: string) => Promise<boolean>,
  deps: BulkReplayDeps,
  result: ReplayDeliveriesResult,
): Promise<void> {
  for (let i = 0; i < found.length; i += CONCURRENCY) {
    await Promise.all(
      found.slice(i, i + CONCURRENCY).map(async (delivery) => {
        if (!(await isActive(delivery.configId))) result.skipped++;
        else if (delivery.status === 'failed')
          (await deps.replay(delivery)) ? result.replayed++ : result.skipped++;
        else if (delivery.status === 'pending')
          (await deps.expedite(delivery)) ? result.expedited++ : result.skipped++;
        else result.skipped++;
      }),
    );
  }
}
