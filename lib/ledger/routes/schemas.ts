import * as v from 'valibot';
import { bigInteger, cursorOf, dataOf, dateTime, metadataView } from '../../openapi/schemas.js';

/**
 * The ledger's response shapes (docs/api.md §3) as valibot schemas, for the OpenAPI document (components named by
 * `ledgerSchemas`) and for the tests that hold real answers against it.
 */

export const postingView = v.strictObject({
  source: v.string(),
  destination: v.string(),
  amount: bigInteger,
  asset: v.string(),
});

export const volumeView = v.strictObject({
  input: bigInteger,
  output: bigInteger,
  balance: bigInteger,
});

/** `{<address>: {<asset>: {input, output, balance}}}`. */
export const volumesByAccount = v.record(v.string(), v.record(v.string(), volumeView));

export const transactionSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  postings: v.array(postingView),
  metadata: metadataView,
  timestamp: dateTime,
  insertedAt: dateTime,
  updatedAt: dateTime,
  reference: v.optional(v.string()),
  template: v.optional(v.string()),
  reverted: v.boolean(),
  revertedAt: v.optional(dateTime),
  postCommitVolumes: v.optional(volumesByAccount),
  preCommitVolumes: v.optional(volumesByAccount),
  postCommitEffectiveVolumes: v.optional(volumesByAccount),
  preCommitEffectiveVolumes: v.optional(volumesByAccount),
});

export const accountSchema = v.strictObject({
  address: v.string(),
  metadata: metadataView,
  firstUsage: dateTime,
  insertionDate: dateTime,
  updatedAt: dateTime,
  volumes: v.optional(v.record(v.string(), volumeView)),
  effectiveVolumes: v.optional(v.record(v.string(), volumeView)),
});

export const logSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  type: v.picklist([
    'NEW_TRANSACTION',
    'SET_METADATA',
    'DELETE_METADATA',
    'REVERTED_TRANSACTION',
    // Only in ledgers with PENDING_TRANSFERS (docs/api.md §3.6).
    'CREATED_PENDING',
    'VOIDED_PENDING',
  ]),
  data: v.record(v.string(), v.unknown()),
  date: dateTime,
  hash: v.pipe(
    v.string(),
    v.description(
      'base64 SHA-256 over the previous hash and this entry; "" when HASH_LOGS is DISABLED.',
    ),
  ),
  idempotencyKey: v.string(),
});

export const ledgerSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer()),
  name: v.string(),
  bucket: v.string(),
  metadata: metadataView,
  features: v.record(v.string(), v.string()),
  addedAt: dateTime,
  deletedAt: v.optional(dateTime),
});

/** One row of `GET /v2/{ledger}/volumes`. */
export const volumeWithBalanceSchema = v.strictObject({
  account: v.string(),
  asset: v.string(),
  input: bigInteger,
  output: bigInteger,
  balance: bigInteger,
});

export const statsSchema = dataOf(
  v.strictObject({
    accounts: v.pipe(v.number(), v.integer()),
    transactions: v.pipe(v.number(), v.integer()),
  }),
);

/** `{<asset>: balance}`. */
export const balancesSchema = dataOf(v.record(v.string(), bigInteger));

const ledgerServerInfo = v.strictObject({
  server: v.literal('ledger'),
  version: v.string(),
  experimentalFeatures: v.array(v.string()),
  config: v.strictObject({
    storage: v.strictObject({ driver: v.string(), ledgers: v.optional(v.array(v.string())) }),
  }),
});

export const serverInfoSchema = dataOf(ledgerServerInfo);
/** `/_/info`, the SDK's v2 getInfo: the reference's V2ConfigInfo, nothing more. */
export const unwrappedServerInfoSchema = v.strictObject({
  server: v.literal('ledger'),
  version: v.string(),
  experimentalFeatures: v.array(v.string()),
});

export const ledgerInfoSchema = dataOf(
  v.strictObject({
    name: v.string(),
    storage: v.looseObject({ migrations: v.optional(v.array(v.unknown())) }),
  }),
);

/** One element's answer in `POST /v2/{ledger}/_bulk`. */
export const bulkResultSchema = v.looseObject({
  responseType: v.picklist([
    'CREATE_TRANSACTION',
    'ADD_METADATA',
    'REVERT_TRANSACTION',
    'DELETE_METADATA',
    'ERROR',
  ]),
  data: v.optional(v.unknown()),
  errorCode: v.optional(v.string()),
  errorDescription: v.optional(v.string()),
});

/** A v1 transaction: `txid` for `id`, volumes always present (docs/api.md §3.4). */
export const v1TransactionSchema = v.looseObject({
  txid: v.pipe(v.number(), v.integer()),
  postings: v.array(postingView),
  metadata: v.record(v.string(), v.unknown()),
  timestamp: dateTime,
  reference: v.optional(v.string()),
  reverted: v.optional(v.boolean()),
  preCommitVolumes: v.optional(volumesByAccount),
  postCommitVolumes: v.optional(volumesByAccount),
});

export const v1AccountSchema = v.looseObject({
  address: v.string(),
  metadata: v.record(v.string(), v.unknown()),
  volumes: v.optional(v.record(v.string(), v.looseObject({}))),
  balances: v.optional(v.record(v.string(), bigInteger)),
});

export const v1LogSchema = v.looseObject({
  id: v.pipe(v.number(), v.integer()),
  type: v.string(),
  data: v.record(v.string(), v.unknown()),
  date: dateTime,
  hash: v.string(),
});

export const mappingSchema = dataOf(
  v.nullable(
    v.looseObject({
      contracts: v.array(v.looseObject({ account: v.string(), expr: v.unknown() })),
    }),
  ),
);

/** A point of an account's balance history (docs/api.md §3.6). */
export const balancePointSchema = v.strictObject({
  timestamp: dateTime,
  txId: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  input: bigInteger,
  output: bigInteger,
  balance: bigInteger,
});

/** The ledger's named schemas: `#/components/schemas/<name>` in its document. */
export const ledgerSchemas = {
  Transaction: transactionSchema,
  Posting: postingView,
  Volume: volumeView,
  VolumesByAccount: volumesByAccount,
  Account: accountSchema,
  Log: logSchema,
  Ledger: ledgerSchema,
  VolumeWithBalance: volumeWithBalanceSchema,
  BalancePoint: balancePointSchema,
  BulkElementResult: bulkResultSchema,
  V1Transaction: v1TransactionSchema,
  V1Account: v1AccountSchema,
  V1Log: v1LogSchema,
};

export const transactionData = dataOf(transactionSchema);

export const transactionPage = cursorOf(transactionSchema);
export const accountData = dataOf(accountSchema);
export const accountPage = cursorOf(accountSchema);
export const logPage = cursorOf(logSchema);
export const ledgerData = dataOf(ledgerSchema);
export const ledgerPage = cursorOf(ledgerSchema);
export const volumePage = cursorOf(volumeWithBalanceSchema);
export const balanceHistoryPage = cursorOf(balancePointSchema);

export const ledgerDocument = {
  service: 'ledger',
  title: 'Ledger',
  description:
    'Double-entry ledgers (v2, and v1 for existing callers): transactions, accounts, volumes, the hash-chained log.',
  schemas: ledgerSchemas,
} as const;

/** `POST /v2/{ledger}/_bulk`: each element's result; the first error's code and message at the top. */
export const bulkResponseSchema = v.strictObject({
  data: v.array(bulkResultSchema),
  errorCode: v.optional(v.string()),
  errorMessage: v.optional(v.string()),
});

export const v1TransactionData = dataOf(v1TransactionSchema);
export const v1TransactionList = dataOf(v.array(v1TransactionSchema));
export const v1TransactionPage = cursorOf(v1TransactionSchema);
export const v1AccountData = dataOf(v1AccountSchema);
export const v1AccountPage = cursorOf(v1AccountSchema);
export const v1LogPage = cursorOf(v1LogSchema);
/** `GET /{ledger}/balances`: a page of `{<address>: {<asset>: balance}}`. */
export const v1BalancesPage = cursorOf(v.record(v.string(), v.record(v.string(), bigInteger)));

/** `POST /{ledger}/script`: the transaction, or what the script decided against (still 200, as v1 answers). */
export const v1ScriptResponseSchema = v.strictObject({
  transaction: v.optional(v1TransactionSchema),
  errorCode: v.optional(v.string()),
  errorMessage: v.optional(v.string()),
});

/** `PUT /{ledger}/mapping`'s body (parsed by domain/mapping.ts, which checks each expression). */
export const mappingBodySchema = v.strictObject({
  contracts: v.array(
    v.strictObject({
      id: v.optional(v.string()),
      account: v.pipe(v.string(), v.description('Account pattern; `*` matches any segments.')),
      expr: v.pipe(
        v.record(v.string(), v.unknown()),
        v.description(
          'Expression over `$balance` and `{"$meta": key}` with `$and`, `$or`, `$eq`, `$gt`, …',
        ),
      ),
    }),
  ),
});
