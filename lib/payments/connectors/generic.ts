import * as v from 'valibot';
import { stringifyJson } from '../../json/bigint-json.js';
import { ASSET } from '../../money/asset.js';
import { formatInstant } from '../../time/instant.js';
import { parseCreatedAt, sortableCreatedAt } from '../domain/input.js';
import {
  PAYMENT_SCHEMES,
  PAYMENT_STATUSES,
  type PaymentScheme,
  type PaymentStatus,
  type PaymentType,
} from '../domain/payment.js';
import { createGenericBankAccount } from './generic-bank-accounts.js';
import { getJson, type HttpDeps, postJson } from './http.js';
import {
  type FetchPage,
  type InitiationRequest,
  type ProviderAccount,
  type ProviderBalance,
  type ProviderClient,
  ProviderError,
  type ProviderPayment,
} from './provider.js';

/**
 * The generic connector: a provider-side HTTP API of four lists (the reference's generic connector API) —
 * `GET /accounts`, `/accounts/<id>/balances`, `/beneficiaries`, `/transactions` — paged with `page` and
 * `pageSize`, filtered from a time (`createdAtFrom`, `updatedAtFrom`), with a bearer API key. The cursor is the
 * last time seen: a page is read again from it, items at or before it skipped.
 */

const metadata = v.optional(v.nullable(v.record(v.string(), v.string())), {});
const time = v.pipe(
  v.string(),
  v.transform((s) => formatInstant(parseCreatedAt(s))),
);
const amount = v.pipe(
  v.string(),
  v.regex(/^-?\d{1,38}$/),
  v.transform((s: string) => BigInt(s)),
);
const asset = v.pipe(v.string(), v.regex(ASSET));

const accountSchema = v.object({
  id: v.string(),
  accountName: v.string(),
  createdAt: time,
  metadata,
});
const beneficiarySchema = v.object({
  id: v.string(),
  ownerName: v.string(),
  createdAt: time,
  metadata,
});
const balancesSchema = v.object({
  at: time,
  balances: v.array(v.object({ amount, currency: asset })),
});
const transactionSchema = v.object({
  id: v.string(),
  relatedTransactionID: v.optional(v.nullable(v.string())),
  createdAt: time,
  updatedAt: time,
  currency: asset,
  scheme: v.optional(v.nullable(v.string())),
  type: v.picklist(['PAYIN', 'PAYOUT', 'TRANSFER', 'REFUND', 'OTHER']),
  status: v.string(),
  amount: v.pipe(
    v.string(),
    v.regex(/^\d{1,38}$/),
    v.transform((s: string) => BigInt(s)),
  ),
  sourceAccountID: v.optional(v.nullable(v.string())),
  destinationAccountID: v.optional(v.nullable(v.string())),
  metadata,
});

function parseItems<S extends v.GenericSchema>(
  schema: S,
  body: unknown,
  what: string,
): v.InferOutput<S>[] {
  if (!Array.isArray(body)) throw new ProviderError(`provider: ${what} is not a list`);
  return body.map((item, i) => {
    const result = v.safeParse(schema, item);
    if (!result.success)
      throw new ProviderError(`provider: ${what}[${i}] is malformed (${result.issues[0].message})`);
    return result.output;
  });
}

const TYPES: Record<string, PaymentType> = {
  PAYIN: 'PAY-IN',
  PAYOUT: 'PAYOUT',
  TRANSFER: 'TRANSFER',
  REFUND: 'OTHER',
  OTHER: 'OTHER',
};

const statusOf = (s: string): PaymentStatus =>
  s === 'PROCESSING'
    ? 'PENDING'
    : (PAYMENT_STATUSES as readonly string[]).includes(s)
      ? (s as PaymentStatus)
      : 'OTHER';
const schemeOf = (s: string | null | undefined): PaymentScheme =>
  s && (PAYMENT_SCHEMES as readonly string[]).includes(s.toUpperCase())
    ? (s.toUpperCase() as PaymentScheme)
    : 'OTHER';

type Get = (path: string, query?: Record<string, string | number | undefined>) => Promise<unknown>;

/** Pages from `page` 1 until `pageSize` new items are found or the provider has no more. */
async function fetchSince<T extends { createdAt: string }, R>(
  get: Get,
  path: string,
  timeParam: string,
  sort: string,
  schema: v.GenericSchema<unknown, T>,
  timeOf: (item: T) => string,
  map: (item: T) => R,
  state: Record<string, unknown>,
  pageSize: number,
): Promise<FetchPage<R>> {
  const since = typeof state.since === 'string' ? state.since : undefined;
  const fresh: T[] = [];
  let hasMore = false;
  for (let page = 1; fresh.length < pageSize; page++) {
    const items = parseItems(
      schema,
      await get(path, { page, pageSize, sort, [timeParam]: since }),
      path,
    );
    fresh.push(...items.filter((i) => since === undefined || later(timeOf(i), since)));
    hasMore = items.length >= pageSize;
    if (!hasMore) break;
  }
  const taken = fresh.slice(0, pageSize);
  if (fresh.length > pageSize) hasMore = true;
  const last = taken.at(-1);
  return { items: taken.map(map), state: last ? { since: timeOf(last) } : state, hasMore };
}

export interface GenericConfig {
  endpoint: string;
  apiKey: string;
}

export function genericClient(config: GenericConfig, deps: HttpDeps): ProviderClient {
  const url = (path: string, query: Record<string, string | number | undefined>) => {
    const u = new URL(
      path.replace(/^\//, ''),
      config.endpoint.endsWith('/') ? config.endpoint : `${config.endpoint}/`,
    );
    for (const [k, value] of Object.entries(query))
      if (value !== undefined) u.searchParams.set(k, String(value));
    return u;
  };
  const get = (path: string, query: Record<string, string | number | undefined> = {}) =>
    getJson(deps, url(path, query), config.apiKey);

  return {
    fetchAccounts: (state, pageSize) =>
      fetchSince(
        get,
        '/accounts',
        'createdAtFrom',
        'createdAt:asc',
        accountSchema,
        (a) => a.createdAt,
        toAccount,
        state,
        pageSize,
      ),
    fetchExternalAccounts: (state, pageSize) =>
      fetchSince(
        get,
        '/beneficiaries',
        'createdAtFrom',
        'createdAt:asc',
        beneficiarySchema,
        (b) => b.createdAt,
        (b) => toAccount({ ...b, accountName: b.ownerName }),
        state,
        pageSize,
      ),
    fetchBalances: async (reference) => {
      const body = await get(`/accounts/${encodeURIComponent(reference)}/balances`);
      const result = v.safeParse(balancesSchema, body);
      if (!result.success)
        throw new ProviderError(`provider: balances of ${reference} are malformed`);
      return result.output.balances.map(
        (b): ProviderBalance => ({ asset: b.currency, balance: b.amount, at: result.output.at }),
      );
    },
    fetchPayments: (state, pageSize) =>
      fetchSince(
        get,
        '/transactions',
        'updatedAtFrom',
        'updatedAt:asc',
        transactionSchema,
        (t) => t.updatedAt,
        toPayment,
        state,
        pageSize,
      ),
    initiate: (request) => createAtProvider(deps, url, config.apiKey, request),
    reverse: () => Promise.reject(new ProviderError('the generic connector API has no reversals')),
    createBankAccount: (request) =>
      createGenericBankAccount(deps, url('/bank-accounts', {}), config.apiKey, request),
  };
}

/** `POST /transfers` or `/payouts`, the initiation's reference as the idempotency key: the payment it made. */
async function createAtProvider(
  deps: HttpDeps,
  url: (path: string, query: Record<string, string>) => URL,
  apiKey: string,
  request: InitiationRequest,
): Promise<ProviderPayment> {
  if (!request.sourceAccountReference || !request.destinationAccountReference)
    throw new ProviderError('the generic connector needs a source and a destination account');
  const path = request.type === 'TRANSFER' ? '/transfers' : '/payouts';
  const body = stringifyJson({
    idempotencyKey: request.reference,
    amount: String(request.amount),
    currency: request.asset,
    sourceAccountId: request.sourceAccountReference,
    destinationAccountId: request.destinationAccountReference,
    description: request.description,
    metadata: request.metadata,
  });
  const answer = v.safeParse(createdSchema, await postJson(deps, url(path, {}), apiKey, body));
  if (!answer.success)
    throw new ProviderError(`provider: the created ${path.slice(1, -1)} is malformed`);
  return createdToPayment(request.type, answer.output);
}

/** What `POST /transfers` and `/payouts` answer. */
const createdSchema = v.object({
  id: v.string(),
  amount: v.pipe(
    v.string(),
    v.regex(/^\d{1,38}$/),
    v.transform((s: string) => BigInt(s)),
  ),
  currency: asset,
  sourceAccountId: v.optional(v.nullable(v.string())),
  destinationAccountId: v.optional(v.nullable(v.string())),
  status: v.string(),
  createdAt: time,
  metadata,
});

function createdToPayment(
  type: 'TRANSFER' | 'PAYOUT',
  t: v.InferOutput<typeof createdSchema>,
): ProviderPayment {
  return {
    reference: t.id,
    type,
    status: statusOf(t.status),
    amount: t.amount,
    asset: t.currency,
    scheme: 'OTHER',
    createdAt: t.createdAt,
    metadata: t.metadata ?? {},
    ...(t.sourceAccountId ? { sourceAccountReference: t.sourceAccountId } : {}),
    ...(t.destinationAccountId ? { destinationAccountReference: t.destinationAccountId } : {}),
  };
}

const later = (a: string, b: string) => sortableCreatedAt(a) > sortableCreatedAt(b);

function toAccount(a: {
  id: string;
  accountName: string;
  createdAt: string;
  metadata: Record<string, string> | null;
}): ProviderAccount {
  return {
    reference: a.id,
    createdAt: a.createdAt,
    name: a.accountName,
    metadata: a.metadata ?? {},
    raw: { ...a },
  };
}

function toPayment(t: v.InferOutput<typeof transactionSchema>): ProviderPayment {
  const status = statusOf(t.status);
  return {
    reference: t.id,
    type: TYPES[t.type]!,
    status,
    amount: t.amount,
    asset: t.currency,
    scheme: schemeOf(t.scheme),
    createdAt: t.createdAt,
    metadata: t.metadata ?? {},
    ...(t.sourceAccountID ? { sourceAccountReference: t.sourceAccountID } : {}),
    ...(t.destinationAccountID ? { destinationAccountReference: t.destinationAccountID } : {}),
    adjustments: [
      {
        reference: t.id,
        createdAt: t.updatedAt,
        status,
        amount: t.amount,
        asset: t.currency,
        raw: { ...t, amount: String(t.amount) },
      },
    ],
  };
}
