import type { Context } from 'hono';
import * as v from 'valibot';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { AppEnv } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { readListQuery } from '../../pagination/cursor.js';
import { createPendingSchema, postPendingSchema } from '../commands/pending.js';
import type { LedgerRecord } from '../domain/change.js';
import { requireFeature } from '../domain/features.js';
import { type PendingStatus, type PendingTransfer, pendingView } from '../domain/pending.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import { type PendingReads, pendingListName } from '../store/pending-reads.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import { readAddress, readIdempotencyKey, requestLedger } from './request.js';

export interface PendingDeps {
  lookup: LedgerLookup;
  commands: LedgerCommands;
  pending: PendingReads;
}

export type PendingHandlers = ReturnType<typeof pendingHandlers>;

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

/** The pending transfers' handlers (docs/api.md §3.6), loaded by routes/pending.ts at the first such request. */
export function pendingHandlers({ lookup, commands, pending }: PendingDeps) {
  /** The ledger, refused (400 naming the feature) unless it keeps holds. */
  const holdsLedger = async (c: Context<AppEnv>): Promise<LedgerRecord> => {
    const ledger = await requestLedger(c, lookup);
    requireFeature(ledger.features, 'PENDING_TRANSFERS');
    return ledger;
  };
  const holdOf = async (ledger: LedgerRecord, c: Context<AppEnv>): Promise<PendingTransfer> => {
    const id = readPendingId(c.req.param('id') ?? '');
    const hold = await pending.get(ledger, id);
    if (!hold) throw new NotFoundError(`pending transfer ${id} not found`);
    return hold;
  };
  const writeOptions = (c: Context<AppEnv>) => {
    const idempotencyKey = readIdempotencyKey(c);
    return {
      dryRun: booleanFlag(c.req.query('dryRun'), 'dryRun'),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    };
  };
  const answer = (
    c: Context<AppEnv>,
    outcome: Awaited<ReturnType<LedgerCommands['execute']>>,
    status: 200 | 201,
  ) => {
    if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
    return jsonResponse(c, { data: outcome.result }, status);
  };
  return {
    async create(c: Context<AppEnv>): Promise<Response> {
      const ledger = await holdsLedger(c);
      const input = await readJsonBody(c, createPendingSchema, { parse: parseJson });
      const outcome = await commands.execute(ledger, {
        kind: 'create-pending',
        input,
        options: writeOptions(c),
      });
      return answer(c, outcome, 201);
    },
    async list(c: Context<AppEnv>): Promise<Response> {
      const ledger = await holdsLedger(c);
      const list = readListQuery(c.req.query(), pendingListName(ledger.name), ['status']);
      const status = readStatus(list.cursor ? list.cursor.f?.status : c.req.query('status'));
      const page = await pending.list(ledger, list, status);
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(pendingView) } });
    },
    async get(c: Context<AppEnv>): Promise<Response> {
      const ledger = await holdsLedger(c);
      return jsonResponse(c, { data: pendingView(await holdOf(ledger, c)) });
    },
    async post(c: Context<AppEnv>): Promise<Response> {
      const ledger = await holdsLedger(c);
      const hold = await holdOf(ledger, c);
      const input = await readJsonBody(c, v.optional(postPendingSchema, {}), {
        parse: parseJson,
        optional: true,
      });
      const outcome = await commands.execute(ledger, {
        kind: 'post-pending',
        hold: { id: hold.id, postings: hold.postings.map(plainPosting) },
        input,
        options: writeOptions(c),
      });
      return answer(c, outcome, 200);
    },
    async void(c: Context<AppEnv>): Promise<Response> {
      const ledger = await holdsLedger(c);
      const hold = await holdOf(ledger, c);
      const outcome = await commands.execute(ledger, {
        kind: 'void-pending',
        hold: { id: hold.id, postings: hold.postings.map(plainPosting) },
        reason: 'VOID',
        options: writeOptions(c),
      });
      return answer(c, outcome, 200);
    },
    async balances(c: Context<AppEnv>): Promise<Response> {
      const ledger = await requestLedger(c, lookup);
      const address = readAddress(c.req.param('address') ?? '');
      const balances = await pending.balances(ledger, address);
      return jsonResponse(c, {
        data: Object.fromEntries(
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
        ),
      });
    },
  };
}

const plainPosting = (p: PendingTransfer['postings'][number]) => ({
  source: p.source,
  destination: p.destination,
  amount: p.amount,
  asset: p.asset,
});
