import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ConflictError, NoPostingsError, ValidationError } from '../../errors/index.js';
import { canonicalJson } from '../../json/canonical.js';
import { metadataMap } from '../../validation/common.js';
import { amountSchema } from '../../money/amounts.js';
import { ASSET } from '../../money/asset.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import type { Posting } from '../domain/postings.js';
import { formatInstant, parseInstant, sortableInstant, type Instant } from '../../time/instant.js';
import { transactionView, type Transaction, type VolumesView } from '../domain/transaction.js';
import { isEnabled } from '../domain/features.js';
import { ledgerKeys, type ItemKey } from '../store/keys.js';
import type { LedgerRecord } from '../store/registry.js';
import type { Write, WriteRequest } from '../store/writer.js';
import { postingEffects, postingReads } from './posting-effects.js';
import { transactionMetadataIndexWrites } from './transaction-metadata-index.js';

export const MAX_POSTINGS = 100;

export const addressSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(MAX_ADDRESS_LENGTH, `must be at most ${MAX_ADDRESS_LENGTH} characters`),
  v.regex(ACCOUNT_ADDRESS, 'must be an account address (segments of a-z A-Z 0-9 _ - separated by ":")'),
);
export const assetSchema = v.pipe(v.string('must be a string'), v.regex(ASSET, 'must be an asset such as USD, USD/2 or EUR_COL/12'));

const postingSchema = v.strictObject({
  source: addressSchema,
  destination: addressSchema,
  amount: amountSchema,
  asset: assetSchema,
});

export const createTransactionSchema = v.strictObject({
  postings: v.optional(v.pipe(v.array(postingSchema, 'must be an array of postings'), v.maxLength(MAX_POSTINGS, `must have at most ${MAX_POSTINGS} postings`))),
  script: v.optional(v.unknown()),
  metadata: v.optional(metadataMap),
  reference: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters'))),
  timestamp: v.optional(v.string('must be an RFC 3339 date-time string')),
  accountMetadata: v.optional(v.record(addressSchema, metadataMap, 'must map account addresses to metadata')),
  force: v.optional(v.boolean('must be a boolean')),
});
export type CreateTransactionInput = v.InferOutput<typeof createTransactionSchema>;

export interface CreateTransactionOptions {
  dryRun: boolean;
  force: boolean;
  idempotencyKey?: string;
}

export type TransactionResult = ReturnType<typeof transactionView>;

/** Hash of what makes two requests "the same" for Idempotency-Key: the parsed body and the query flags. */
export function requestHash(input: unknown, options: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson({ input, options })).digest('base64url');
}

/**
 * POST /v2/<ledger>/transactions as a ledger write: reads the volumes and accounts it touches, applies the
 * postings in order, and writes the transaction, new volumes, new or changed accounts and the reference.
 */
export function createTransactionWrite(ledger: LedgerRecord, input: CreateTransactionInput, options: CreateTransactionOptions): WriteRequest<TransactionResult> {
  if (input.script !== undefined) throw new ValidationError('body.script: Numscript is not supported; send postings');
  const postings: Posting[] = input.postings ?? [];
  if (postings.length === 0) throw new NoPostingsError('a transaction needs at least one posting');
  const timestamp = input.timestamp === undefined ? undefined : parseInstant(input.timestamp, 'body.timestamp');
  const force = options.force || input.force === true;
  const accountMetadata = input.accountMetadata ?? {};

  const reads: ItemKey[] = [
    ...postingReads(ledger.name, postings, Object.keys(accountMetadata)),
    ...(input.reference !== undefined ? [ledgerKeys.reference(ledger.name, input.reference)] : []),
  ];

  return {
    ledger,
    reads,
    dryRun: options.dryRun,
    ...(options.idempotencyKey !== undefined
      ? { idempotency: { key: options.idempotencyKey, requestHash: requestHash(input, { force: options.force, dryRun: options.dryRun }) } }
      : {}),
    decide(snapshot, { now, table }) {
      const referenceKey = input.reference !== undefined ? ledgerKeys.reference(ledger.name, input.reference) : undefined;
      const duplicate = () => new ConflictError(`duplicate reference "${input.reference}"`);
      if (referenceKey && snapshot.get(referenceKey)) throw duplicate();

      const id = snapshot.head.lastTxId + 1;
      const at = timestamp ?? now;
      const nowText = formatInstant(now);
      const tx: Transaction = {
        id,
        postings,
        metadata: input.metadata ?? {},
        timestamp: formatInstant(at),
        insertedAt: nowText,
        updatedAt: nowText,
        ...(input.reference !== undefined ? { reference: input.reference } : {}),
        reverted: false,
      };
      const effects = postingEffects(snapshot, ledger.name, postings, { force, at, now, table, accountMetadata, txId: id, features: ledger.features });
      const { post } = effects;
      const writes: Write[] = [transactionPut(table, ledger.name, tx, post, at), ...transactionIndexWrites(table, ledger, tx), ...effects.writes];
      if (referenceKey) {
        writes.push({
          item: { Put: { TableName: table, Item: { ...referenceKey, txId: id }, ConditionExpression: 'attribute_not_exists(pk)' } },
          onConditionFailure: duplicate,
        });
      }

      const logged = transactionView(tx);
      return {
        result: transactionView(tx, { post }),
        log: { type: 'NEW_TRANSACTION', data: { transaction: logged, accountMetadata } },
        writes,
        // The event's payload is the logged transaction with these volumes (lib/ledger/store/log-events.ts).
        ev: { post },
        head: { lastTxId: id, accountsAdded: effects.accountsAdded },
      };
    },
  };
}

/** Transactions are stored as exact JSON text (amounts as big integers) with their post-commit volumes. */
export function storeTransaction(tx: Transaction, post: VolumesView): string {
  return canonicalJson({ ...tx, postCommitVolumes: post });
}

/** The Put of a transaction item (conditional on being new when created), listed by time through gsi1. */
export function transactionPut(table: string, ledger: string, tx: Transaction, post: VolumesView, at: Instant, options: { create?: boolean } = { create: true }): Write {
  const timestamp = sortableInstant(at);
  return {
    item: {
      Put: {
        TableName: table,
        Item: {
          ...ledgerKeys.transaction(ledger, tx.id),
          gsi1pk: ledgerKeys.transactionsByTime(ledger),
          gsi1sk: ledgerKeys.transactionTimeSort(timestamp, tx.id),
          id: tx.id,
          timestamp,
          body: storeTransaction(tx, post),
        },
        ...(options.create ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
      },
    },
  };
}

/**
 * Index items of a new transaction: one per metadata pair (the `metadata[key]` filter), and with
 * INDEX_TRANSACTION_ACCOUNTS ON one small item per account saying whether the account was a source, a
 * destination or both: lists filtered by account read these, never the whole ledger.
 */
export function transactionIndexWrites(table: string, ledger: LedgerRecord, tx: Transaction): Write[] {
  const metadata = transactionMetadataIndexWrites(table, ledger.name, tx.id, {}, tx.metadata);
  if (!isEnabled(ledger.features, 'INDEX_TRANSACTION_ACCOUNTS')) return metadata;
  const roles = new Map<string, { source: boolean; destination: boolean }>();
  for (const p of tx.postings) {
    roles.set(p.source, { source: true, destination: roles.get(p.source)?.destination ?? false });
    roles.set(p.destination, { source: roles.get(p.destination)?.source ?? false, destination: true });
  }
  return [
    ...metadata,
    ...[...roles].map(([address, role]) => ({
      item: { Put: { TableName: table, Item: { ...ledgerKeys.accountTransaction(ledger.name, address, tx.id), txId: tx.id, ...role } } },
    })),
  ];
}
