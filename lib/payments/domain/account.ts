import { ConflictError } from '../../errors/index.js';
import { stringifyJson } from '../../json/bigint-json.js';
import { hashedId } from './ids.js';
import { mergeMetadata } from './metadata.js';
import { providerOf } from './payment.js';

/** Whether an account is the provider's own (INTERNAL) or a counterparty's (EXTERNAL): the reference's enum. */
export const ACCOUNT_TYPES = ['INTERNAL', 'EXTERNAL'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** An account at a payment provider (docs/api.md §6): what the API answers and `payments.saved_account` carries. */
export interface Account {
  id: string;
  connectorID: string;
  provider: string;
  reference: string;
  createdAt: string;
  type: AccountType;
  name?: string;
  defaultAsset?: string;
  metadata: Record<string, string>;
  /** The provider's payload (or the create request) as received, passed through untouched. */
  raw: Record<string, unknown>;
}

export interface AccountInput {
  reference: string;
  connectorID: string;
  createdAt: string;
  type: AccountType;
  name?: string;
  defaultAsset?: string;
  metadata?: Record<string, string>;
  raw: Record<string, unknown>;
}

/** The account id: one per (connectorID, reference), as the reference keys accounts. */
export const accountId = (connectorID: string, reference: string): string =>
  hashedId('accounts.v1', [connectorID, reference]);

/**
 * Create or update from a create request or a connector's fetch. The same (connectorID, reference) names the same
 * account: name, default asset and raw follow the newest report, metadata is merged; createdAt and type describe
 * the account's origin and cannot change (409).
 */
export function recordAccount(current: Account | undefined, input: AccountInput): Account {
  const next: Account = {
    id: accountId(input.connectorID, input.reference),
    connectorID: input.connectorID,
    provider: providerOf(input.connectorID),
    reference: input.reference,
    createdAt: input.createdAt,
    type: input.type,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.defaultAsset !== undefined ? { defaultAsset: input.defaultAsset } : {}),
    metadata: { ...input.metadata },
    raw: input.raw,
  };
  if (!current) return next;
  for (const field of ['createdAt', 'type'] as const) {
    if (current[field] !== next[field])
      throw new ConflictError(
        `${field}: account ${current.id} was recorded with ${field} ${current[field]}; it cannot change`,
      );
  }
  return {
    ...next,
    name: next.name ?? current.name,
    defaultAsset: next.defaultAsset ?? current.defaultAsset,
    metadata: mergeMetadata(current.metadata, next.metadata, 'account'),
  } as Account;
}

export function sameAccount(a: Account, b: Account): boolean {
  return stringifyJson(accountView(a)) === stringifyJson(accountView(b));
}

/** The record in the contract's field order, absent optional fields omitted. */
export function accountView(a: Account): Account {
  return {
    id: a.id,
    connectorID: a.connectorID,
    provider: providerOf(a.connectorID),
    reference: a.reference,
    createdAt: a.createdAt,
    type: a.type,
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.defaultAsset !== undefined ? { defaultAsset: a.defaultAsset } : {}),
    metadata: a.metadata,
    raw: a.raw,
  };
}
