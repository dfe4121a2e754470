import { NotFoundError } from '../../errors/index.js';
import { formatInstant } from '../../time/instant.js';
import type { LedgerChange, LedgerRecord, WriteRequest } from '../domain/change.js';
import { newAccount } from '../domain/posting-effects.js';
import { requestHash } from './create-transaction.js';

/** Who metadata is set on: a transaction (by id) or an account (by address). */
export type MetadataTarget =
  | { type: 'TRANSACTION'; id: number }
  | { type: 'ACCOUNT'; address: string };

export type MetadataChange =
  | { kind: 'save'; metadata: Record<string, string> }
  | { kind: 'delete'; key: string };

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
  const describe =
    target.type === 'ACCOUNT' ? `account "${target.address}"` : `transaction ${target.id}`;
  return {
    ledger,
    reads:
      target.type === 'ACCOUNT' ? { accounts: [target.address] } : { transactions: [target.id] },
    dryRun: options.dryRun,
    ...(options.idempotencyKey !== undefined
      ? {
          idempotency: {
            key: options.idempotencyKey,
            requestHash: requestHash({ target, change }, {}),
          },
        }
      : {}),
    decide(state, { now }) {
      const account = target.type === 'ACCOUNT' ? state.account(target.address) : undefined;
      const transaction = target.type === 'TRANSACTION' ? state.transaction(target.id) : undefined;
      if (!account && !transaction && !(target.type === 'ACCOUNT' && change.kind === 'save'))
        throw new NotFoundError(`${describe} not found`);
      const current = account?.metadata ?? transaction?.tx.metadata ?? {};
      if (change.kind === 'delete' && !Object.hasOwn(current, change.key))
        throw new NotFoundError(
          `metadata key "${change.key.slice(0, 256)}" not found on ${describe}`,
        );
      const next =
        change.kind === 'save'
          ? { ...current, ...change.metadata }
          : withoutKey(current, change.key);
      const nowText = formatInstant(now);

      const ledgerChange: LedgerChange = {
        log: metadataLog(target, change),
        transactions: transaction
          ? [
              {
                record: {
                  tx: { ...transaction.tx, metadata: next, updatedAt: nowText },
                  post: transaction.post,
                },
                before: transaction,
              },
            ]
          : [],
        volumes: [],
        moves: [],
        accounts:
          target.type === 'ACCOUNT'
            ? [
                account
                  ? { after: { ...account, metadata: next, updatedAt: nowText }, before: account }
                  : { after: newAccount(target.address, now, next) },
              ]
            : [],
        metadataRevision: { target, metadata: next },
        references: [],
        accountsAdded: target.type === 'ACCOUNT' && !account ? 1 : 0,
      };
      return { result: null, change: ledgerChange };
    },
  };
}

/** The log entry of a metadata change: SET_METADATA with the metadata set, DELETE_METADATA with the key. */
function metadataLog(target: MetadataTarget, change: MetadataChange): LedgerChange['log'] {
  const targetId = target.type === 'ACCOUNT' ? target.address : target.id;
  return change.kind === 'save'
    ? {
        type: 'SET_METADATA',
        data: { targetType: target.type, targetId, metadata: change.metadata },
      }
    : { type: 'DELETE_METADATA', data: { targetType: target.type, targetId, key: change.key } };
}

function withoutKey(metadata: Record<string, string>, key: string): Record<string, string> {
  const { [key]: _removed, ...rest } = metadata;
  return rest;
}
