import type { Context } from 'hono';
import * as v from 'valibot';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { readListQuery } from '../../pagination/cursor.js';
import type { LedgerRecord } from '../domain/change.js';
import { requireFeature } from '../domain/features.js';
import { type PendingStatus, type PendingTransfer, pendingView } from '../domain/pending.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import {
  type AccountBalances,
  type PendingReads,
  pendingListName,
} from '../store/pending-reads.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import { createPendingSchema, postPendingSchema } from './pending-schemas.js';
import { readAddress, readIdempotencyKey, requestLedger } from './request.js';

export interface PendingDeps {
  lookup: LedgerLookup;
  commands: LedgerCommands;
  /** The holds' reads, built by the assembly at the first pending request (they load with it). */
  pendingReads: () => Promise<PendingReads>;
}

export type PendingHandlers = ReturnType<typeof pendingHandlers>;

/** The bodies' schemas, built as this module loads: at a ledger's first pending request. */
const createPendingBody = createPendingSchema();
const postPendingBody = postPendingSchema();

const STATUSES: readonly PendingStatus[] = ['PENDING', 'POSTED', 'VOIDED', 'EXPIRED'];

/** A hold id path parameter; anything that cannot be one is a 404, like an unknown id. */
function readPendingId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw new NotFoundError(`pending transfer ${raw.slice(0, 32)} not found`);
  return id;
}

function readStatus(raw: string | undefined): PendingStatus | undefined {
  if (raw === undefined) return undefined;
  if (!(STATUSES as readonly string[]).includes(raw))
    throw new ValidationError(`status: must be one of ${STATUSES.join(', ')}`);
  return raw as PendingStatus;
}

/** The ledger, refused (400 naming the feature) unless it keeps holds. */
async function holdsLedger(c: Context<HonoTypes>, lookup: LedgerLookup): Promise<LedgerRecord> {
  const ledger = await requestLedger(c, lookup);
  requireFeature(ledger.features, 'PENDING_TRANSFERS');
  return ledger;
}

/** The hold the path names, as a post or void plans its reads from it. */
async function holdOf(
  pending: PendingReads,
  ledger: LedgerRecord,
  c: Context<HonoTypes>,
): Promise<{ id: number; postings: ReturnType<typeof plainPosting>[] }> {
  const id = readPendingId(c.req.param('id') ?? '');
  const hold = await pending.get(ledger, id);
  if (!hold) throw new NotFoundError(`pending transfer ${id} not found`);
  return { id: hold.id, postings: hold.postings.map(plainPosting) };
}

function writeOptions(c: Context<HonoTypes>) {
  const idempotencyKey = readIdempotencyKey(c);
  return {
    dryRun: booleanFlag(c.req.query('dryRun'), 'dryRun'),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
}

function answer(
  c: Context<HonoTypes>,
  outcome: Awaited<ReturnType<LedgerCommands['execute']>>,
  status: 200 | 201,
): Response {
  if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
  return jsonResponse(c, { data: outcome.result }, status);
}

/** Per asset: posted, held in and out, and available (posted − held out). */
function balancesView(balances: AccountBalances[]) {
  return Object.fromEntries(
    balances.map(({ asset, volume, held }) => {
      const posted = volume.input - volume.output;
      return [
        asset,
        {
          posted,
          pendingIn: held.pendingInput,
          pendingOut: held.pendingOutput,
          available: posted - held.pendingOutput,
        },
      ];
    }),
  );
}

/** The pending transfers' handlers (docs/api.md §3.6), loaded by routes/pending.ts at the first such request. */
export function pendingHandlers(
  { lookup, commands }: Omit<PendingDeps, 'pendingReads'>,
  pending: PendingReads,
) {
  return {
    async create(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await holdsLedger(c, lookup);
      const input = await readJsonBody(c, createPendingBody, { parse: parseJson });
      const outcome = await commands.execute(ledger, {
        kind: 'create-pending',
        input,
        options: writeOptions(c),
      });
      return answer(c, outcome, 201);
    },
    async list(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await holdsLedger(c, lookup);
      const list = readListQuery(c.req.query(), pendingListName(ledger.name), ['status']);
      const status = readStatus(list.cursor ? list.cursor.f?.status : c.req.query('status'));
      const page = await pending.list(ledger, list, status);
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(pendingView) } });
    },
    async get(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await holdsLedger(c, lookup);
      const id = readPendingId(c.req.param('id') ?? '');
      const hold = await pending.get(ledger, id);
      if (!hold) throw new NotFoundError(`pending transfer ${id} not found`);
      return jsonResponse(c, { data: pendingView(hold) });
    },
    async post(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await holdsLedger(c, lookup);
      const hold = await holdOf(pending, ledger, c);
      const input = await readJsonBody(c, v.optional(postPendingBody, {}), {
        parse: parseJson,
        optional: true,
      });
      const outcome = await commands.execute(ledger, {
        kind: 'post-pending',
        hold,
        input,
        options: writeOptions(c),
      });
      return answer(c, outcome, 200);
    },
    async void(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await holdsLedger(c, lookup);
      const hold = await holdOf(pending, ledger, c);
      const outcome = await commands.execute(ledger, {
        kind: 'void-pending',
        hold,
        reason: 'VOID',
        options: writeOptions(c),
      });
      return answer(c, outcome, 200);
    },
    async balances(c: Context<HonoTypes>): Promise<Response> {
      const ledger = await requestLedger(c, lookup);
      const address = readAddress(c.req.param('address') ?? '');
      return jsonResponse(c, { data: balancesView(await pending.balances(ledger, address)) });
    },
  };
}

const plainPosting = (p: PendingTransfer['postings'][number]) => ({
  source: p.source,
  destination: p.destination,
  amount: p.amount,
  asset: p.asset,
});
