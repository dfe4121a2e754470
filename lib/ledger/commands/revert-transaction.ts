import { AlreadyRevertedError, NotFoundError } from '../../errors/index.js';
import { formatInstant, parseInstant } from '../../time/instant.js';
import type { LedgerRecord, WriteRequest } from '../domain/change.js';
import { checkExpectations, type Expectation } from '../domain/expectations.js';
import { postingEffects, postingReads } from '../domain/posting-effects.js';
import { reversePostings } from '../domain/postings.js';
import { REVERTS_KEY, type Transaction, transactionView } from '../domain/transaction.js';
import { requestHash, type TransactionResult } from './create-transaction.js';
import { withExpectationReads } from './expectations.js';

/** What a revert takes beside the transaction's id (the routes' revertBodySchema produces it). */
export interface RevertBody {
  metadata?: Record<string, string>;
  /** Balance preconditions (docs/api.md §3.6). */
  expect?: Expectation[];
}

export interface RevertOptions {
  force: boolean;
  atEffectiveDate: boolean;
  dryRun: boolean;
  idempotencyKey?: string;
  /** The schema version the write names, recorded in the log (a revert has nothing a chart rules on). */
  schemaVersion?: string;
}

/** A revert's idempotency record: the key and what makes two reverts the same request (not the original's content). */
export function revertIdempotency(
  id: number,
  body: RevertBody,
  options: RevertOptions,
): Pick<WriteRequest<unknown>, 'idempotency'> {
  return options.idempotencyKey !== undefined
    ? {
        idempotency: {
          key: options.idempotencyKey,
          requestHash: requestHash(
            { revert: id, body },
            { force: options.force, atEffectiveDate: options.atEffectiveDate },
          ),
        },
      }
    : {};
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
  body: RevertBody,
  options: RevertOptions,
): WriteRequest<TransactionResult> {
  if (!original) throw new NotFoundError(`transaction ${id} not found`);
  const postings = reversePostings(original.postings);
  const reads = withExpectationReads(postingReads(postings), body.expect);
  return {
    ledger,
    // The original is read again inside the snapshot: its `reverted` flag decides under the sequencer.
    reads: { ...reads, transactions: [id] },
    dryRun: options.dryRun,
    ...revertIdempotency(id, body, options),
    decide(state, { now }) {
      const stored = state.transaction(id);
      if (!stored) throw new NotFoundError(`transaction ${id} not found`);
      if (stored.tx.reverted)
        throw new AlreadyRevertedError(`transaction ${id} is already reverted`);

      const at = options.atEffectiveDate ? parseInstant(stored.tx.timestamp, 'timestamp') : now;
      const nowText = formatInstant(now);
      const revert: Transaction = {
        id: state.head.lastTxId + 1,
        postings,
        metadata: { ...(body.metadata ?? {}), [REVERTS_KEY]: String(id) },
        timestamp: formatInstant(at),
        insertedAt: nowText,
        updatedAt: nowText,
        reverted: false,
      };
      const reverted: Transaction = {
        ...stored.tx,
        reverted: true,
        revertedAt: nowText,
        updatedAt: nowText,
      };
      const effects = postingEffects(state, postings, {
        force: options.force,
        limitsForce: options.force,
        at,
        now,
        txId: revert.id,
      });
      checkExpectations(body.expect, {
        before: (account, asset) => state.volume(account, asset),
        after: (account, asset) => effects.post[account]?.[asset] ?? state.volume(account, asset),
      });
      return {
        result: transactionView(revert, { post: effects.post }),
        change: {
          log: {
            type: 'REVERTED_TRANSACTION',
            data: {
              revertedTransaction: transactionView(reverted),
              transaction: transactionView(revert),
            },
            ...(options.schemaVersion !== undefined
              ? { schemaVersion: options.schemaVersion }
              : {}),
          },
          transactions: [
            { record: { tx: revert, post: effects.post } },
            { record: { tx: reverted, post: stored.post }, before: stored },
          ],
          volumes: effects.volumes,
          moves: effects.moves,
          accounts: effects.accounts,
          references: [],
          lastTxId: revert.id,
          accountsAdded: effects.accountsAdded,
        },
      };
    },
  };
}
