import { NotFoundError } from '../../errors/index.js';
import { isEnabled } from '../domain/features.js';
import { formatInstant, parseInstant, sortableInstant } from '../../time/instant.js';
import { ledgerKeys, type ItemKey } from '../store/keys.js';
import type { LedgerRecord } from '../store/registry.js';
import { parseStoredTransaction } from '../store/transaction-reads.js';
import type { Write, WriteContext, WriteRequest } from '../store/writer.js';
import { requestHash, transactionPut } from './create-transaction.js';
import { accountItem } from './posting-effects.js';
import { accountMetadataIndexWrites } from './account-metadata-index.js';
import { addressSegmentIndexWrites } from './address-segment-index.js';
import { transactionMetadataIndexWrites } from './transaction-metadata-index.js';

/** Who metadata is set on: a transaction (by id) or an account (by address). */
export type MetadataTarget = { type: 'TRANSACTION'; id: number } | { type: 'ACCOUNT'; address: string };

export type MetadataChange = { kind: 'save'; metadata: Record<string, string> } | { kind: 'delete'; key: string };

/** Revisions kept when *_METADATA_HISTORY is SYNC: one item per change, keyed by log id, for point-in-time reads. */
const revisionKey = (ledger: string, target: MetadataTarget, logId: number): ItemKey =>
  target.type === 'ACCOUNT'
    ? { pk: ledgerKeys.accountPartition(ledger, target.address), sk: `MH#${String(logId).padStart(15, '0')}` }
    : { pk: `L#${ledger}#TXMH#${target.id}`, sk: String(logId).padStart(15, '0') };

/**
 * Sets or deletes metadata on a transaction or an account, as one ledger write: the target rewritten, a
 * revision when history is on, a SET_METADATA or DELETE_METADATA log entry and its event. Setting metadata
 * on an unknown account creates the account; every other missing target (or key, on delete) is a 404.
 */
export function metadataWrite(
  ledger: LedgerRecord,
  target: MetadataTarget,
  change: MetadataChange,
  options: { dryRun: boolean; idempotencyKey?: string },
): WriteRequest<null> {
  const key = target.type === 'ACCOUNT' ? ledgerKeys.account(ledger.name, target.address) : ledgerKeys.transaction(ledger.name, target.id);
  const targetId = target.type === 'ACCOUNT' ? target.address : target.id;
  const describe = target.type === 'ACCOUNT' ? `account "${target.address}"` : `transaction ${target.id}`;
  return {
    ledger,
    reads: [key],
    dryRun: options.dryRun,
    ...(options.idempotencyKey !== undefined
      ? { idempotency: { key: options.idempotencyKey, requestHash: requestHash({ target, change }, {}) } }
      : {}),
    decide(snapshot, context) {
      const existing = snapshot.get(key);
      if (!existing && !(target.type === 'ACCOUNT' && change.kind === 'save')) throw new NotFoundError(`${describe} not found`);
      const current = currentMetadata(existing, target);
      if (change.kind === 'delete' && !(change.key in current)) throw new NotFoundError(`metadata key "${change.key.slice(0, 256)}" not found on ${describe}`);
      const next = change.kind === 'save' ? { ...current, ...change.metadata } : withoutKey(current, change.key);

      const writes: Write[] = [
        targetWrite(ledger.name, target, existing, next, context),
        ...(target.type === 'ACCOUNT' && !existing ? addressSegmentIndexWrites(context.table, ledger.name, target.address, ledger.features) : []),
        ...(target.type === 'ACCOUNT'
          ? accountMetadataIndexWrites(context.table, ledger.name, target.address, current, next)
          : transactionMetadataIndexWrites(context.table, ledger.name, target.id, current, next)),
      ];
      const historyFeature = target.type === 'ACCOUNT' ? 'ACCOUNT_METADATA_HISTORY' : 'TRANSACTION_METADATA_HISTORY';
      if (isEnabled(ledger.features, historyFeature)) {
        writes.push({
          item: { Put: { TableName: context.table, Item: { ...revisionKey(ledger.name, target, context.logId), metadata: next, date: formatInstant(context.now) } } },
        });
      }
      return change.kind === 'save'
        ? {
            result: null,
            log: { type: 'SET_METADATA', data: { targetType: target.type, targetId, metadata: change.metadata } },
            writes,
            ev: {},
            head: { accountsAdded: existing ? 0 : 1 },
          }
        : {
            result: null,
            log: { type: 'DELETE_METADATA', data: { targetType: target.type, targetId, key: change.key } },
            writes,
            ev: {},
          };
    },
  };
}

function currentMetadata(item: Record<string, unknown> | undefined, target: MetadataTarget): Record<string, string> {
  if (!item) return {};
  if (target.type === 'ACCOUNT') return (item.metadata as Record<string, string> | undefined) ?? {};
  return parseStoredTransaction(String(item.body)).tx.metadata;
}

function targetWrite(
  ledger: string,
  target: MetadataTarget,
  existing: Record<string, unknown> | undefined,
  metadata: Record<string, string>,
  { now, table }: WriteContext,
): Write {
  const nowText = formatInstant(now);
  if (target.type === 'ACCOUNT') {
    const fields = existing ? { metadata, updatedAt: nowText } : { metadata, updatedAt: nowText, firstUsage: nowText, firstUsageKey: sortableInstant(now) };
    return { item: { Put: { TableName: table, Item: accountItem(ledger, target.address, existing, fields) } } };
  }
  const stored = parseStoredTransaction(String(existing!.body));
  const tx = { ...stored.tx, metadata, updatedAt: nowText };
  return transactionPut(table, ledger, tx, stored.post, parseInstant(stored.tx.timestamp, 'timestamp'), { create: false });
}

function withoutKey(metadata: Record<string, string>, key: string): Record<string, string> {
  const { [key]: _removed, ...rest } = metadata;
  return rest;
}
