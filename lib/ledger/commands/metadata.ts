import { NotFoundError } from '../../errors/index.js';
import { formatInstant } from '../../time/instant.js';
import type { LedgerChange, LedgerRecord, WriteRequest } from '../domain/change.js';
import { newAccount } from '../domain/posting-effects.js';
import {
  accountDefaultsUnderSchema,
  type WriteSchema,
} from '../domain/schema/transaction-schema.js';
import { requestHash } from './create-transaction.js';

/** Who metadata is set on: a transaction (by id) or an account (by address). */
export type MetadataTarget =
  | { type: 'TRANSACTION'; id: number }
  | { type: 'ACCOUNT'; address: string };

export type MetadataChange =
  | { kind: 'save'; metadata: Record<string, string> }
  | { kind: 'delete'; key: string };

export interface MetadataOptions {
  dryRun: boolean;
  idempotencyKey?: string;
  /** The schema version the write names: recorded in the log; its chart's defaults go to an account it creates. */
  schema?: WriteSchema;
  /** The version to record without its chart (an imported entry's). */
  schemaVersion?: string;
}

/**
 * Sets or deletes metadata on a transaction or an account, as one ledger write: the target rewritten, a
 * revision when history is on, a SET_METADATA or DELETE_METADATA log entry and its event. Setting metadata
 * on an unknown account creates the account; every other missing target (or key, on delete) is a 404.
 */
export function metadataWrite(
  ledger: LedgerRecord,
  target: MetadataTarget,
  change: MetadataChange,
  options: MetadataOptions,
): WriteRequest<null> {
  const schemaVersion = options.schema?.version ?? options.schemaVersion;
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
      // An account this write creates gets the chart's defaults under what it sets; the log records them, so
      // an import gives the same account without the schema.
      const saved =
        change.kind === 'save' && target.type === 'ACCOUNT' && !account && options.schema
          ? { ...accountDefaultsUnderSchema(options.schema, target.address), ...change.metadata }
          : undefined;
      const next =
        change.kind === 'save'
          ? { ...current, ...(saved ?? change.metadata) }
          : withoutKey(current, change.key);
      const nowText = formatInstant(now);

      const ledgerChange: LedgerChange = {
        log: {
          ...metadataLog(target, saved ? { kind: 'save', metadata: saved } : change),
          ...(schemaVersion !== undefined ? { schemaVersion } : {}),
        },
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
