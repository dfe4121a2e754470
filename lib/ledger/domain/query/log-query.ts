import type { LogEntry } from '../logs.js';
import { type Condition, conjuncts, evaluate, parseQuery, type Schema } from './ast.js';
import { instantField, integerField, stringField } from './values.js';

/** The fields a log list filters on: the reference's `id` and `date`, and the entry's `type`. */
export const logSchema: Schema<LogEntry> = (field) => {
  switch (field) {
    case 'id':
      return integerField((log) => BigInt(log.id));
    case 'date':
      return instantField((log) => log.date);
    case 'type':
      return stringField((log) => log.type, 64);
    default:
      return undefined;
  }
};

/**
 * How a log list is read: the log is kept by id, so bounds on `id` narrow the range read (`below`: ids under it;
 * `from`: ids at or above it); everything else is evaluated on each entry (`keep`), a bounded number per page.
 */
export interface LogPlan {
  below?: number;
  from?: number;
  keep?: (log: LogEntry) => boolean;
}

export function planLogQuery(raw: string | undefined): LogPlan {
  const query = parseQuery(raw, logSchema, '{"$gte": {"date": "2026-01-01T00:00:00Z"}}', 'logs');
  if (!query) return {};
  const parts = conjuncts(query);
  const idBounds = parts.filter((q): q is Condition => 'op' in q && q.field === 'id');
  const plan: LogPlan = {};
  for (const { op, value } of idBounds) {
    // An `$in` list spans its least to its greatest id (and is then checked entry by entry).
    const ids = op === '$in' ? (value as bigint[]).map(clamp) : [clamp(value as bigint)];
    const [least, greatest] = [Math.min(...ids), Math.max(...ids)];
    const below =
      op === '$lt'
        ? least
        : op === '$lte' || op === '$match' || op === '$in'
          ? greatest + 1
          : undefined;
    const from =
      op === '$gt'
        ? greatest + 1
        : op === '$gte' || op === '$match' || op === '$in'
          ? least
          : undefined;
    if (below !== undefined) plan.below = Math.min(plan.below ?? below, below);
    if (from !== undefined) plan.from = Math.max(plan.from ?? from, from);
  }
  if (idBounds.length < parts.length || idBounds.some((c) => c.op === '$in'))
    plan.keep = (log) => evaluate(query, log, logSchema);
  return plan;
}

/** Ids beyond 2^53 cannot exist, nor below 0: clamped, the bounds stay exact numbers. */
const clamp = (id: bigint) =>
  Number(
    id > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : id < -1n ? -1n : id,
  );
