import * as v from 'valibot';
import { ValidationError } from '../../errors/index.js';
import { decodeCursor, encodeCursor } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs, parseInstant, sortableInstant } from '../../time/instant.js';
import { isConfigId } from '../domain/config.js';
import type { Delivery, DeliveryStatus } from '../domain/delivery.js';
import type { DeliveryStore } from '../store/delivery-store.js';

/**
 * POST /deliveries/replay (the official SDK's `replayDeliveries`, the reference platform's bulk replay): the
 * `failed` deliveries created in [createdAtFrom, createdAtTo] are replayed (as POST /deliveries/<id>/replay does)
 * and the `pending` ones expedited (their next attempt brought forward to now), page by page.
 */

/** Deliveries decided per request: each costs a conditional write and a queue message (DESIGN.md rule 7). */
export const MAX_REPLAY_PAGE = 100;
/** The reference's bound on one bulk replay's window. */
export const MAX_REPLAY_WINDOW_MS = 90 * 24 * 3600_000;
const MAX_CONFIG_IDS = 100;
const LIST = 'webhooks.replay';
/** Pending first: a failed delivery replayed on this run moves to `pending` behind the walk, never expedited too. */
const STATUS_ORDER: readonly ReplayableStatus[] = ['pending', 'failed'];

type ReplayableStatus = Extract<DeliveryStatus, 'failed' | 'pending'>;

export const replayDeliveriesSchema = v.strictObject({
  createdAtFrom: v.pipe(
    v.string('must be an RFC 3339 date-time'),
    v.maxLength(64, 'must be an RFC 3339 date-time'),
  ),
  createdAtTo: v.optional(
    v.pipe(
      v.string('must be an RFC 3339 date-time'),
      v.maxLength(64, 'must be an RFC 3339 date-time'),
    ),
  ),
  statuses: v.optional(
    v.array(
      v.picklist(['failed', 'pending'], 'bulk replay only takes failed and pending'),
      'must be an array',
    ),
  ),
  configIds: v.optional(
    v.pipe(
      v.array(
        v.pipe(v.string('must be config ids'), v.check(isConfigId, 'must be config ids (UUIDs)')),
        'must be an array',
      ),
      v.maxLength(MAX_CONFIG_IDS, `must have at most ${MAX_CONFIG_IDS} entries`),
    ),
  ),
  cursor: v.optional(v.pipe(v.string('must be a string'), v.maxLength(8192, 'malformed'))),
  pageSize: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(1000, 'must be at most 1000'),
    ),
  ),
});
export type ReplayDeliveriesBody = v.InferOutput<typeof replayDeliveriesSchema>;

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
  const from = parseInstant(body.createdAtFrom, 'createdAtFrom');
  const statuses = STATUS_ORDER.filter((s) =>
    body.statuses?.length ? body.statuses.includes(s) : true,
  );
  const configIds = [...new Set(body.configIds ?? [])].sort();
  // The request as a cursor remembers it: a cursor only continues the request it came from.
  const filters = {
    createdAtFrom: body.createdAtFrom,
    statuses: statuses.join(','),
    configIds: configIds.join(','),
  };
  let to: string;
  let partitionIndex = 0;
  let after: string | undefined;
  if (body.cursor !== undefined) {
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
    to = f.createdAtTo!;
    partitionIndex = Number(cursor.k.i);
    after = cursor.k.s || undefined;
  } else {
    // Without an end, the window ends now, fixed for every page of this replay (new deliveries are not chased).
    to = body.createdAtTo ?? formatInstant(instantFromMs(deps.now()));
  }
  const toInstant = parseInstant(to, 'createdAtTo');
  if (toInstant.ms < from.ms || toInstant.ms - from.ms > MAX_REPLAY_WINDOW_MS) {
    throw new ValidationError(
      'createdAtFrom: the window up to createdAtTo must be positive and at most 90 days',
    );
  }
  // The walk: one filter index partition per status, or per status and config.
  const partitions = statuses.flatMap((status) =>
    configIds.length ? configIds.map((configId) => ({ configId, status })) : [{ status }],
  );
  if (!Number.isInteger(partitionIndex) || partitionIndex < 0 || partitionIndex > partitions.length)
    throw new ValidationError('cursor: not a cursor of this list');

  const pageSize = Math.min(body.pageSize ?? MAX_REPLAY_PAGE, MAX_REPLAY_PAGE);
  const result: ReplayDeliveriesResult = {
    replayed: 0,
    expedited: 0,
    skipped: 0,
    hasMore: false,
    createdAtTo: to,
  };
  const active = new Map<string, Promise<boolean>>();
  const isActive = (configId: string): Promise<boolean> => {
    let known = active.get(configId);
    if (!known) {
      known = deps.configActive(configId);
      active.set(configId, known);
    }
    return known;
  };
  let decided = 0;
  while (partitionIndex < partitions.length && decided < pageSize) {
    const page = await deps.deliveries.idsInFilter(
      partitions[partitionIndex]!,
      sortableInstant(from),
      sortableInstant(toInstant),
      after,
      pageSize - decided,
    );
    const found = await deps.deliveries.getMany(page.ids);
    decided += page.ids.length;
    result.skipped += page.ids.length - found.length;
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
    if (page.last !== undefined) after = page.last;
    else {
      partitionIndex++;
      after = undefined;
    }
  }
  if (partitionIndex < partitions.length) {
    result.hasMore = true;
    result.nextCursor = encodeCursor({
      l: LIST,
      p: pageSize,
      d: 'n',
      k: { i: String(partitionIndex), s: after ?? '' },
      f: { ...filters, createdAtTo: to },
    });
  }
  return result;
}
