import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ConflictError, NoPostingsError, ValidationError } from '../../errors/index.js';
import { canonicalJson } from '../../json/canonical.js';
import { metadataMap } from '../../validation/common.js';
import { amountSchema } from '../domain/amounts.js';
import { ACCOUNT_ADDRESS, ASSET, MAX_ADDRESS_LENGTH } from '../domain/names.js';
import { applyPostings, touchedPairs, type Posting, type VolumeMap } from '../domain/postings.js';
import { formatInstant, parseInstant, sortableInstant } from '../domain/time.js';
import { transactionView, volumesView, type Transaction } from '../domain/transaction.js';
import { ledgerKeys, type ItemKey } from '../store/keys.js';
import type { LedgerRecord } from '../store/registry.js';
import type { Snapshot, Write, WriteRequest } from '../store/writer.js';

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

  const pairs = touchedPairs(postings);
  const accounts = [...new Set([...pairs.map(([a]) => a), ...Object.keys(accountMetadata)])];
  const reads: ItemKey[] = [
    ...pairs.map(([account, asset]) => ledgerKeys.volume(ledger.name, account, asset)),
    ...accounts.map((a) => ledgerKeys.account(ledger.name, a)),
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

      const before = readVolumes(snapshot, ledger.name, pairs);
      const after = applyPostings(postings, before, { force });
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
      const post = volumesView(after);

      const writes: Write[] = [
        {
          item: {
            Put: {
              TableName: table,
              Item: {
                ...ledgerKeys.transaction(ledger.name, id),
                id,
                timestamp: sortableInstant(at),
                body: storeTransaction(tx, post),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        },
        ...pairs.map(([account, asset]): Write => {
          const volume = after.get(account)!.get(asset)!;
          return {
            item: {
              Put: {
                TableName: table,
                Item: { ...ledgerKeys.volume(ledger.name, account, asset), account, asset, input: volume.input, output: volume.output, balance: volume.input - volume.output },
              },
            },
          };
        }),
      ];
      let accountsAdded = 0;
      for (const address of accounts) {
        const existing = snapshot.get(ledgerKeys.account(ledger.name, address));
        const extra = accountMetadata[address];
        const earlier = existing && sortableInstant(at) < String(existing.firstUsageKey);
        // The account item lists the assets it holds, so account lists can fetch volumes without a query each.
        const known = (existing?.assets as string[] | undefined) ?? [];
        const assets = [...new Set([...known, ...pairs.filter(([a]) => a === address).map(([, asset]) => asset)])].sort();
        if (existing && !extra && !earlier && assets.length === known.length) continue;
        if (!existing) accountsAdded++;
        writes.push({
          item: {
            Put: {
              TableName: table,
              Item: {
                ...ledgerKeys.account(ledger.name, address),
                gsi1pk: ledgerKeys.accountList(ledger.name),
                gsi1sk: address,
                address,
                metadata: { ...((existing?.metadata as Record<string, string> | undefined) ?? {}), ...(extra ?? {}) },
                assets,
                firstUsage: earlier || !existing ? formatInstant(at) : existing.firstUsage,
                firstUsageKey: earlier || !existing ? sortableInstant(at) : existing.firstUsageKey,
                insertionDate: existing?.insertionDate ?? nowText,
                updatedAt: nowText,
              },
            },
          },
        });
      }
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
        event: {
          type: 'ledger.committed_transactions',
          payload: { ledger: ledger.name, transactions: [{ ...logged, postCommitVolumes: post }], accountMetadata },
        },
        head: { lastTxId: id, accountsAdded },
      };
    },
  };
}

function readVolumes(snapshot: Snapshot, ledger: string, pairs: Array<[string, string]>): VolumeMap {
  const map: VolumeMap = new Map();
  for (const [account, asset] of pairs) {
    const item = snapshot.get(ledgerKeys.volume(ledger, account, asset));
    if (!item) continue;
    let assets = map.get(account);
    if (!assets) map.set(account, (assets = new Map()));
    assets.set(asset, { input: BigInt(item.input as bigint), output: BigInt(item.output as bigint) });
  }
  return map;
}

/** Transactions are stored as exact JSON text (amounts as big integers) with their post-commit volumes. */
export function storeTransaction(tx: Transaction, post: ReturnType<typeof volumesView>): string {
  return canonicalJson({ ...tx, postCommitVolumes: post });
}
