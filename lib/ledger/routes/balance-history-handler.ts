import type { Context } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { ASSET } from '../../money/asset.js';
import { type Cursor, encodeCursor, readListQuery } from '../../pagination/cursor.js';
import { formatInstant, parseInstant, sortableInstant } from '../../time/instant.js';
import { type HistoryPoint, parseInterval } from '../domain/balance-history.js';
import { requireFeature } from '../domain/features.js';
import type { BalanceHistoryReads, HistoryResume } from '../store/balance-history.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { readAddress, requestLedger } from './request.js';

const PARAMS = ['asset', 'from', 'to', 'interval'] as const;

export interface BalanceHistoryDeps {
  lookup: LedgerLookup;
  /** The store's reads, loaded with this handler (the app passes the import, so it stays out of start-up). */
  openReads: () => Promise<Pick<BalanceHistoryReads, 'page'>>;
  now: () => number;
}

/** GET /v2/<ledger>/accounts/<address>/balances/history, loaded at its first request (balance-history.ts). */
export async function balanceHistoryHandler(deps: BalanceHistoryDeps) {
  const history = await deps.openReads();
  return async (c: Context<HonoTypes>): Promise<Response> => {
    const ledger = await requestLedger(c, deps.lookup);
    const address = readAddress(c.req.param('address') ?? '');
    const list = `ledger.history.${ledger.name}.${address}`;
    const listQuery = readListQuery(c.req.query(), list, PARAMS);
    requireFeature(ledger.features, 'MOVES_HISTORY');
    const params = listQuery.cursor ? (listQuery.cursor.f ?? {}) : c.req.query();
    const request = readRequest(params, deps.now);
    const page = await history.page(ledger, address, request.asset, {
      ...(request.from !== undefined ? { from: request.from } : {}),
      to: request.to,
      ...(request.intervalMicros !== undefined ? { intervalMicros: request.intervalMicros } : {}),
      pageSize: listQuery.pageSize,
      ...(listQuery.cursor ? { resume: readResume(listQuery.cursor) } : {}),
    });
    const filters: Record<string, string> = {
      asset: request.asset,
      to: formatInstant(parseInstant(request.to, 'to')),
      ...(params.from ? { from: params.from } : {}),
      ...(params.interval ? { interval: params.interval } : {}),
    };
    const next = page.next
      ? encodeCursor({
          l: list,
          p: listQuery.pageSize,
          k: writeResume(page.next),
          d: 'n',
          f: filters,
        })
      : undefined;
    return jsonResponse(c, {
      cursor: {
        pageSize: listQuery.pageSize,
        hasMore: next !== undefined,
        ...(next ? { next } : {}),
        data: page.points.map(pointView),
      },
    });
  };
}

/** The history's parameters (the request's, or those its cursor carries), checked. */
function readRequest(params: Record<string, string | undefined>, now: () => number) {
  const asset = params.asset;
  if (asset === undefined || asset === '') throw new ValidationError('asset: required');
  if (!ASSET.test(asset)) throw new ValidationError('asset: must be an asset such as USD or USD/2');
  const from = params.from ? sortableInstant(parseInstant(params.from, 'from')) : undefined;
  // `to` defaults to the request's time, and is kept in the cursor: later pages read the same history.
  const to = params.to
    ? sortableInstant(parseInstant(params.to, 'to'))
    : sortableInstant({ ms: now(), micros: 0 });
  const intervalMicros = params.interval ? parseInterval(params.interval) : undefined;
  if (intervalMicros !== undefined && from === undefined)
    throw new ValidationError('from: required with interval');
  if (from !== undefined && from > to) throw new ValidationError('from: must not be after to');
  return { asset, from, to, intervalMicros };
}

function pointView(point: HistoryPoint) {
  return {
    timestamp: formatInstant(parseInstant(point.at, 'at')),
    ...(point.txId !== undefined ? { txId: point.txId } : {}),
    input: point.input,
    output: point.output,
    balance: point.input - point.output,
  };
}

/** A resume point as a cursor's string map. */
function writeResume(resume: HistoryResume): Record<string, string> {
  const { state } = resume;
  return {
    i: String(state.input),
    o: String(state.output),
    lk: resume.lastKey,
    ...(state.txId !== undefined ? { t: String(state.txId) } : {}),
    ...(state.nextSampleMicros !== undefined ? { n: String(state.nextSampleMicros) } : {}),
    ...(resume.position !== undefined ? { pos: resume.position } : {}),
  };
}

const DIGITS = /^\d{1,40}$/;

/** The cursor's resume point; a cursor whose values are not what this route writes is refused. */
function readResume(cursor: Cursor): HistoryResume {
  const { i, o, lk, t, n, pos } = cursor.k;
  const valid =
    i !== undefined &&
    o !== undefined &&
    lk !== undefined &&
    DIGITS.test(i) &&
    DIGITS.test(o) &&
    (t === undefined || /^\d{1,15}$/.test(t)) &&
    (n === undefined || DIGITS.test(n)) &&
    (pos === undefined || pos.startsWith('P#'));
  if (!valid) throw new ValidationError('cursor: not a cursor of this list');
  return {
    state: {
      input: BigInt(i),
      output: BigInt(o),
      ...(t !== undefined ? { txId: Number(t) } : {}),
      ...(n !== undefined ? { nextSampleMicros: BigInt(n) } : {}),
    },
    lastKey: lk,
    ...(pos !== undefined ? { position: pos } : {}),
  };
}
