import { DependencyThrottledError, ValidationError } from '../../errors/index.js';
import type { Write } from './change-items.js';
import { collapse, commitItems, MAX_TRANSACTION_ITEMS } from './commit.js';
import type { CommitWrite } from './decide-batch.js';
import { type Head, headFromItem, type StagedBulk } from './head.js';
import { type ItemKey, type LedgerRef, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import { decodePlanOps, encodePlanOps } from './plan-codec.js';
import { consecutiveRuns } from './runs.js';

type Item = Record<string, unknown>;

/** One write of a staged bulk's plan: an item put as it is, or a key deleted (conditions are HEAD's, below). */
type PlanOp = { put: Item } | { del: ItemKey };

/** A part's actions beside HEAD's put and its plan item's delete: one TransactWriteItems holds 100. */
export const OPS_PER_PART = MAX_TRANSACTION_ITEMS - 2;
/** The attribute of a plan item holding its writes, deflated (plan-codec.ts). */
const PLAN_OPS = 'z';
/** A plan item's writes stay within this estimate before deflating (DynamoDB's item limit is 400 KB). */
const PART_BYTES = 300_000;
/**
 * Actions (HEAD's included) a staged commit of the embedded engine's batch may hold: ≈ 31 parts, so the first
 * transaction (HEAD, log pages, plan items) stays far below DynamoDB's 100 and the batch's latency bounded.
 */
export const MAX_STAGED_ACTIONS = 3_000;
/** Parts a finisher tries before giving up (each lost race means another process applied a part). */
const MAX_FINISH_ROUNDS = 400;

/**
 * An atomic bulk larger than one DynamoDB transaction, committed in parts and all-or-nothing to every reader
 * (docs/decisions/ledger-write-path.md, "Atomic bulks beyond one DynamoDB transaction"). The first transaction
 * moves HEAD (ids, hash, `staged`) and writes the log pages, the idempotency records and the plan: every other
 * item the bulk writes, in parts. From then the bulk is committed. Each part is then one transaction of its
 * writes, the delete of its plan item, and HEAD moved to name the next part (the last clears `staged`),
 * conditional on HEAD's version: parts apply in order, each exactly once, whoever applies them. While HEAD is
 * staged nothing decides (writers finish it first) and readers finish it before answering (staged-reads.ts).
 * The plan's writes carry no conditions: decisions were made over a snapshot at HEAD's version, which the first
 * transaction required, so no reference or transaction they create can exist.
 * Answers the commit's retry reason (nothing written), or undefined once every part is applied.
 */
export async function commitStaged(
  port: LedgerTable,
  ledger: LedgerRef,
  initial: Head,
  next: Head,
  writes: readonly CommitWrite[],
): Promise<'head-moved' | 'conflict' | 'idempotency' | undefined> {
  const done = await commitStagedHead(port, ledger, initial, next, writes);
  if (typeof done === 'string') return done;
  if (done.unfinished) throw done.unfinished;
  return undefined;
}

/**
 * commitStaged, answering HEAD as the last part left it (its version included) once every part is applied — or,
 * once the first transaction committed and a part then failed, the failure as `unfinished`: the bulk is
 * committed all the same (it must not be decided again), and the next reader or writer finishes it.
 */
export async function commitStagedHead(
  port: LedgerTable,
  ledger: LedgerRef,
  initial: Head,
  next: Head,
  writes: readonly CommitWrite[],
): Promise<'head-moved' | 'conflict' | 'idempotency' | { head?: Head; unfinished?: unknown }> {
  const firstLogId = initial.lastLogId + 1;
  const { pages, first, plan } = stagePlan(writes);
  const table = String(pages[0]?.item.Put?.TableName ?? writes[0]?.item.Put?.TableName);
  if (1 + first.length + plan.length > MAX_TRANSACTION_ITEMS)
    throw new ValidationError(
      `the bulk is too large to commit (${plan.length} parts and ${pages.length} log pages)`,
    );
  const staged: StagedBulk = { firstLogId, parts: plan.length, next: 0 };
  const head: Head = { ...next, staged, stagedBulks: (initial.stagedBulks ?? 0) + 1 };
  const planItems: CommitWrite[] = plan.map((ops, part) => ({
    item: {
      Put: {
        TableName: table,
        Item: {
          ...ledgerKeys.stagedPart(ledger, firstLogId, part),
          table,
          [PLAN_OPS]: encodePlanOps(ops),
        },
      },
    },
  }));
  const retry = await port.commit(initial, head, [...first, ...planItems]);
  if (retry) return retry;
  try {
    const finished = await finishStaged(port, ledger, {
      head: { ...head, version: (initial.version ?? 0) + 1 },
      plan: new Map(plan.map((ops, part) => [part, { table, ops }])),
    });
    return { head: finished! };
  } catch (unfinished) {
    return { unfinished };
  }
}

/** HEAD's versions a staged commit of these writes moves: its first transaction, then one per part. */
export function stagedVersions(writes: readonly CommitWrite[]): number {
  return 1 + stagePlan(writes).plan.length;
}

/** A staged commit's first transaction's writes (log pages, and idempotency records while they fit) and its parts. */
function stagePlan(writes: readonly CommitWrite[]) {
  const pages = commitItems(writes.filter((w) => w.log));
  const rest = collapse(writes.filter((w) => !w.log));
  const idempotency = rest.filter((w) => w.idempotency);
  // Idempotency records stay in the first transaction (a concurrent replay is told by their condition) while
  // they fit; beyond, they are applied with the rest (HEAD's version still lets one of two copies commit).
  const inFirst = (parts: number) => 1 + pages.length + idempotency.length + parts;
  let plan = planParts(rest.filter((w) => !w.idempotency));
  let first: CommitWrite[] = [...pages, ...idempotency];
  if (inFirst(plan.length) > MAX_TRANSACTION_ITEMS) {
    plan = planParts(rest);
    first = pages;
  }
  return { pages, first, plan };
}

/** How long a finisher waits for a bulk's own writer to make progress before applying a part itself. */
export interface Patience {
  ms: number;
  sleep: (ms: number) => Promise<void>;
}
const NO_PATIENCE: Patience = { ms: 0, sleep: async () => {} };
/** What writers and readers give another process's bulk: about two parts' commit time on DynamoDB. */
export const FINISH_PATIENCE_MS = 50;

/** A plan part as stored: the table its writes go to, and the writes. */
interface PlanPart {
  table: string;
  ops: PlanOp[];
}

/**
 * Applies what is left of the staged bulk HEAD names, part by part, and answers HEAD once it names none. Safe
 * beside another finisher or a writer: every part is conditional on HEAD's version, and a lost race reads HEAD
 * again and goes on from the part it names. `known`: HEAD as its caller has it (and the plan, if in memory).
 */
export async function finishStaged(
  port: LedgerTable,
  ledger: LedgerRef,
  known?: { head: Head; plan?: ReadonlyMap<number, PlanPart> },
  patience: Patience = NO_PATIENCE,
): Promise<Head | undefined> {
  let head = known?.head ?? (await readHead(port, ledger));
  for (let round = 0; head?.staged; round++) {
    if (round >= MAX_FINISH_ROUNDS)
      throw new DependencyThrottledError('the ledger is busy finishing a bulk; retry shortly');
    const { staged } = head;
    const planned = known?.plan && known.head.staged?.firstLogId === staged.firstLogId;
    if (!planned && patience.ms > 0) {
      // Another process's bulk: its own writer is likely applying it; step in only once it makes no progress.
      await patience.sleep(patience.ms);
      const now = await readHead(port, ledger);
      if (now?.version !== head.version) {
        head = now;
        continue;
      }
    }
    const part =
      (planned ? known.plan!.get(staged.next) : undefined) ??
      (await readPart(port, ledger, staged));
    if (!part) {
      // Another process applied it (and deleted it) since HEAD was read: go on from what HEAD names now.
      head = await readHead(port, ledger);
      continue;
    }
    const { staged: _applied, ...rest } = head;
    const nextHead: Head =
      staged.next + 1 < staged.parts
        ? { ...rest, staged: { ...staged, next: staged.next + 1 } }
        : rest;
    const key = ledgerKeys.stagedPart(ledger, staged.firstLogId, staged.next);
    const writes: CommitWrite[] = [
      ...part.ops.map((op) => opWrite(part.table, op)),
      { item: { Delete: { TableName: part.table, Key: key } } },
    ];
    if (await port.commit(head, nextHead, writes)) head = await readHead(port, ledger);
    else head = { ...nextHead, version: (head.version ?? 0) + 1 };
  }
  return head;
}

/** HEAD as it is now (one consistent read); undefined for a ledger without one. */
export async function readHead(port: LedgerTable, ledger: LedgerRef): Promise<Head | undefined> {
  const [item] = await port.getItems([ledgerKeys.head(ledger)]);
  return item ? headFromItem(item) : undefined;
}

async function readPart(
  port: LedgerTable,
  ledger: LedgerRef,
  staged: StagedBulk,
): Promise<PlanPart | undefined> {
  const [item] = await port.getItems([
    ledgerKeys.stagedPart(ledger, staged.firstLogId, staged.next),
  ]);
  // HEAD names the part until the transaction that applies it deletes it.
  if (!item) return undefined;
  // Parts staged before their writes were deflated keep them as a plain list.
  const ops = item[PLAN_OPS] instanceof Uint8Array ? decodePlanOps(item[PLAN_OPS]) : item.ops;
  return { table: String(item.table), ops: ops as PlanOp[] };
}

function opWrite(table: string, op: PlanOp): CommitWrite {
  return 'put' in op
    ? { item: { Put: { TableName: table, Item: op.put } } }
    : { item: { Delete: { TableName: table, Key: op.del } } };
}

/** The writes as plan parts of at most OPS_PER_PART writes and about PART_BYTES each, conditions dropped. */
function planParts(writes: readonly Write[]): PlanOp[][] {
  return consecutiveRuns(
    writes.map(planOp),
    approximateBytes,
    (part, _, bytes, size) => part.length === OPS_PER_PART || bytes + size > PART_BYTES,
  );
}

function planOp(w: Write): PlanOp {
  if (w.item.Put) return { put: w.item.Put.Item };
  if (w.item.Delete) return { del: w.item.Delete.Key as ItemKey };
  throw new Error('a staged bulk writes Put and Delete actions only');
}

/** An item's size as DynamoDB counts it, about: names and values, strings by their UTF-16 length. */
function approximateBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number' || typeof value === 'bigint') return 21;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + approximateBytes(v), 3);
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + 1 + approximateBytes(v), 3);
  return Object.entries(value as Item).reduce(
    (n, [k, v]) => n + k.length + 1 + approximateBytes(v),
    3,
  );
}
