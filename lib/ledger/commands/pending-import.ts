import * as v from 'valibot';
import { ledgerAmountSchema } from '../../money/amounts.js';
import type { LogEntry } from '../domain/logs.js';
import type { LedgerOperation } from './operations.js';
import { replayedHold, replayedPost } from './replayed-writes.js';

/**
 * The pending transfers' log entries read back into the writes that logged them (the import's replay): a hold's
 * creation, a post (a NEW_TRANSACTION whose data has `pending`) and a release, each decided again by the same
 * commands, so the replayed entry must come out equal to the imported one.
 */

const postingSchema = v.object({
  source: v.string(),
  destination: v.string(),
  amount: ledgerAmountSchema,
  asset: v.string(),
});
const holdSchema = v.object({
  id: v.bigint(),
  postings: v.array(postingSchema),
  metadata: v.record(v.string(), v.string()),
  expiresAt: v.optional(v.string()),
});
const createdSchema = v.object({ pending: holdSchema });
const voidedSchema = v.object({
  pending: holdSchema,
  reason: v.picklist(['VOID', 'EXPIRED']),
});
const postedSchema = v.object({
  transaction: v.object({ metadata: v.record(v.string(), v.string()) }),
  pending: holdSchema,
  post: v.object({ amounts: v.array(ledgerAmountSchema), final: v.boolean() }),
});

type Parse = <S extends v.GenericSchema>(schema: S, value: unknown) => v.InferOutput<S>;

const holdOf = (hold: v.InferOutput<typeof holdSchema>) => ({
  id: Number(hold.id),
  postings: hold.postings.map(({ source, destination, amount, asset }) => ({
    source,
    destination,
    amount,
    asset,
  })),
});

/** The operation of a pending transfer's entry; undefined for any other entry. */
export function pendingOperationOf(
  entry: LogEntry,
  idempotency: { idempotencyKey?: string },
  parse: Parse,
): LedgerOperation | undefined {
  const options = {
    dryRun: false,
    ...(idempotency.idempotencyKey !== undefined
      ? { idempotencyKey: idempotency.idempotencyKey }
      : {}),
  };
  if (entry.type === 'CREATED_PENDING') {
    const { pending } = parse(createdSchema, entry.data);
    const input = parse(replayedHold, {
      postings: holdOf(pending).postings,
      metadata: pending.metadata,
      ...(pending.expiresAt !== undefined ? { expiresAt: pending.expiresAt } : {}),
      // The log records what was decided: a hold forced past a balance is replayed as such.
      force: true,
    });
    return { kind: 'create-pending', input, options };
  }
  if (entry.type === 'VOIDED_PENDING') {
    const { pending, reason } = parse(voidedSchema, entry.data);
    return { kind: 'void-pending', hold: holdOf(pending), reason, options };
  }
  if (entry.type === 'NEW_TRANSACTION' && entry.data.pending !== undefined) {
    const { transaction, pending, post } = parse(postedSchema, entry.data);
    const input = parse(replayedPost, {
      amounts: post.amounts,
      final: post.final,
      metadata: transaction.metadata,
    });
    return { kind: 'post-pending', hold: holdOf(pending), input, options };
  }
  return undefined;
}
