import { createHash } from 'node:crypto';
import { GoMap, GoStruct, type GoValue, goJson } from './go-json.js';
import type {
  ReferenceLogLine,
  ReferenceLogType,
  ReferencePayload,
  ReferenceTransaction,
} from './wire.js';

/**
 * The reference platform's log hash (HASH_LOGS=SYNC), recomputed from its export. The reference hashes not the
 * exported `data` but its "memento": the decision alone (a transaction without its volumes, insertedAt or
 * updatedAt; a revert as the reverted id and the new transaction). Its database computes, per ledger:
 *
 *   SHA-256( [ `"` base64(previous hash) `"` LF ]  `{"type":T,"data":MEMENTO,"date":D,"idempotencyKey":K,"id":0,
 *            "hash":null[,"schemaVersion":V]}` LF )
 *
 * with MEMENTO as Go's encoding/json wrote it when the log was inserted, D the log date (UTC, microseconds,
 * trailing zeros trimmed: the export's own form) and K the key as is. Returns base64, as the export writes it.
 */
export function referenceLogHash(
  previousHash: string | undefined,
  log: ReferenceLogLine,
  memento: GoValue,
): string {
  const schema = log.schemaVersion !== undefined ? `,"schemaVersion":"${log.schemaVersion}"` : '';
  const body = `{"type":"${log.type}","data":${goJson(memento)},"date":"${log.date}","idempotencyKey":"${log.idempotencyKey}","id":0,"hash":null${schema}}\n`;
  const digest = createHash('sha256');
  if (previousHash !== undefined) digest.update(`"${previousHash}"\n`);
  return digest.update(body).digest('base64');
}

const metadataMap = (m: Record<string, string> | null | undefined) => new GoMap(m ?? null);

/** The transaction as the reference's memento keeps it: the decision, not its volumes nor its dates of record. */
function transactionMemento(tx: ReferenceTransaction): GoStruct {
  return new GoStruct([
    [
      'postings',
      tx.postings.map(
        (p) =>
          new GoStruct([
            ['source', p.source],
            ['destination', p.destination],
            ['amount', p.amount],
            ['asset', p.asset],
          ]),
      ),
    ],
    ['metadata', metadataMap(tx.metadata)],
    ['timestamp', tx.timestamp],
    ...(tx.reference ? [['reference', tx.reference] as const] : []),
    ['id', tx.id],
    // Always false in the memento: a transaction is hashed as it was created.
    ['reverted', false],
  ]);
}

/** What the reference hashed for a log of the given type (its payload's memento, or the payload itself). */
export function referenceMemento<T extends ReferenceLogType>(
  type: T,
  payload: ReferencePayload<T>,
): GoValue {
  switch (type) {
    case 'NEW_TRANSACTION': {
      const p = payload as ReferencePayload<'NEW_TRANSACTION'>;
      const accounts = p.accountMetadata
        ? Object.fromEntries(
            Object.entries(p.accountMetadata).map(([a, m]) => [a, metadataMap(m)] as const),
          )
        : null;
      return new GoStruct([
        ['transaction', transactionMemento(p.transaction)],
        ['accountMetadata', new GoMap(accounts)],
      ]);
    }
    case 'REVERTED_TRANSACTION': {
      const p = payload as ReferencePayload<'REVERTED_TRANSACTION'>;
      return new GoStruct([
        ['revertedTransactionID', p.revertedTransaction.id],
        ['transaction', transactionMemento(p.transaction)],
      ]);
    }
    case 'SET_METADATA': {
      const p = payload as ReferencePayload<'SET_METADATA'>;
      return new GoStruct([
        ['targetType', p.targetType],
        ['targetId', p.targetId],
        ['metadata', metadataMap(p.metadata)],
      ]);
    }
    default: {
      const p = payload as ReferencePayload<'DELETE_METADATA'>;
      return new GoStruct([
        ['targetType', p.targetType],
        ['targetId', p.targetId],
        ['key', p.key],
      ]);
    }
  }
}
