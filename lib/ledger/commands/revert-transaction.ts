import * as v from 'valibot';
import { AlreadyRevertedError, NotFoundError } from '../../errors/index.js';
import { metadataMap } from '../../validation/common.js';
import { isEnabled } from '../domain/features.js';
import { reversePostings } from '../domain/postings.js';
import { formatInstant, parseInstant } from '../../time/instant.js';
import { transactionView, type Transaction } from '../domain/transaction.js';
import { ledgerKeys } from '../store/keys.js';
import type { LedgerRecord } from '../store/registry.js';
import { parseStoredTransaction } from '../store/transaction-reads.js';
import type { WriteRequest } from '../store/writer.js';
import { requestHash, transactionIndexWrites, transactionPut, type TransactionResult } from './create-transaction.js';
import { postingEffects, postingReads } from './posting-effects.js';

/** Metadata key marking a reverting transaction (the reference platform's spec key). */
export const REVERTS_KEY = 'com.formance.spec/state/reverts';

export const revertBodySchema = v.strictObject({ metadata: v.optional(metadataMap) });

export interface RevertOptions {
  force: boolean;
  atEffectiveDate: boolean;
  dryRun: boolean;
  idempotencyKey?: string;
}

/**
 * POST /v2/<ledger>/transactions/<id>/revert: a new transaction with each posting reversed (source and
 * destination swapped, in reverse order), balance-checked like a create unless forced; the original is
 * marked reverted. Both in one commit.
 */
export function revertTransactionWrite(
  ledger: LedgerRecord,
  id: number,
  original: Transaction | undefined,
  body: v.InferOutput<typeof revertBodySchema>,
  options: RevertOptions,
): WriteRequest<TransactionResult> {
  if (!original) throw new NotFoundError(`transaction ${id} not found`);
  const postings = reversePostings(original.postings);
  return {
    ledger,
    // The original is read again inside the snapshot: its `reverted` flag decides under the sequencer.
    reads: [ledgerKeys.transaction(ledger.name, id), ...postingReads(ledger.name, postings)],
    dryRun: options.dryRun,
    ...(options.idempotencyKey !== undefined
      ? { idempotency: { key: options.idempotencyKey, requestHash: requestHash({ revert: id, body }, { force: options.force, atEffectiveDate: options.atEffectiveDate }) } }
      : {}),
    decide(snapshot, { now, table }) {
      const item = snapshot.get(ledgerKeys.transaction(ledger.name, id));
      if (!item) throw new NotFoundError(`transaction ${id} not found`);
      const stored = parseStoredTransaction(String(item.body));
      if (stored.tx.reverted) throw new AlreadyRevertedError(`transaction ${id} is already reverted`);

      const at = options.atEffectiveDate ? parseInstant(stored.tx.timestamp, 'timestamp') : now;
      const nowText = formatInstant(now);
      const revert: Transaction = {
        id: snapshot.head.lastTxId + 1,
        postings,
        metadata: { ...(body.metadata ?? {}), [REVERTS_KEY]: String(id) },
        timestamp: formatInstant(at),
        insertedAt: nowText,
        updatedAt: nowText,
        reverted: false,
      };
      const reverted: Transaction = { ...stored.tx, reverted: true, revertedAt: nowText, updatedAt: nowText };
      const effects = postingEffects(snapshot, ledger.name, postings, { force: options.force, at, now, table, txId: revert.id, features: ledger.features });
      const originalAt = parseInstant(stored.tx.timestamp, 'timestamp');
      return {
        result: transactionView(revert, { post: effects.post }),
        log: { type: 'REVERTED_TRANSACTION', data: { revertedTransaction: transactionView(reverted), transaction: transactionView(revert) } },
        writes: [
          transactionPut(table, ledger.name, revert, effects.post, at),
          ...transactionIndexWrites(table, ledger, revert),
          transactionPut(table, ledger.name, reverted, stored.post, originalAt, { create: false }),
          ...effects.writes,
        ],
        // The event shows both transactions with their volumes (lib/ledger/store/log-events.ts).
        ev: { post: effects.post, revertedPost: stored.post },
        head: { lastTxId: revert.id, accountsAdded: effects.accountsAdded },
      };
    },
  };
}
