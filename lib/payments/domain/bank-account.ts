import { ValidationError } from '../../errors/index.js';
import { mergeMetadata } from './metadata.js';

/** A bank account registered to pay out to (docs/api.md §6). */
export interface BankAccount {
  id: string;
  createdAt: string;
  name: string;
  accountNumber?: string;
  iban?: string;
  swiftBicCode?: string;
  country?: string;
  metadata: Record<string, string>;
  /** The provider-side accounts it was forwarded to, oldest first. */
  relatedAccounts: RelatedAccount[];
  /** The payment service user it belongs to, if any. */
  psuID?: string;
}

export interface RelatedAccount {
  accountID: string;
  connectorID: string;
  createdAt: string;
}

export interface BankAccountInput {
  name: string;
  accountNumber?: string;
  iban?: string;
  swiftBicCode?: string;
  country?: string;
  metadata?: Record<string, string>;
}

/** A new bank account: an account number or an IBAN is required, as in the reference. */
export function newBankAccount(
  id: string,
  createdAt: string,
  input: BankAccountInput,
): BankAccount {
  if (input.accountNumber === undefined && input.iban === undefined)
    throw new ValidationError('body: accountNumber or iban is required');
  return { id, createdAt, ...input, metadata: { ...input.metadata }, relatedAccounts: [] };
}

export function withBankAccountMetadata(
  current: BankAccount,
  metadata: Record<string, string>,
): BankAccount {
  if (Object.keys(metadata).length === 0)
    throw new ValidationError('body.metadata: metadata must be provided');
  return { ...current, metadata: mergeMetadata(current.metadata, metadata, 'bank account') };
}

/** Keeps the first characters and the last, masking the rest (all of it when too short to keep both ends). */
function obfuscate(value: string, prefix: number, suffix: number): string {
  if (value.length < prefix + suffix) return '*'.repeat(value.length);
  return `${value.slice(0, prefix)}${'*'.repeat(value.length - prefix - suffix)}${value.slice(value.length - suffix)}`;
}

/**
 * The full record, as GET answers it. Lists leave the numbers out and events mask them (`bankAccountListView`,
 * `bankAccountEventView`): only a read of one bank account by id shows them whole, as in the reference.
 */
export function bankAccountView(b: BankAccount): Record<string, unknown> {
  return {
    id: b.id,
    createdAt: b.createdAt,
    name: b.name,
    ...(b.accountNumber !== undefined ? { accountNumber: b.accountNumber } : {}),
    ...(b.iban !== undefined ? { iban: b.iban } : {}),
    ...(b.swiftBicCode !== undefined ? { swiftBicCode: b.swiftBicCode } : {}),
    ...(b.country !== undefined ? { country: b.country } : {}),
    metadata: b.metadata,
    relatedAccounts: b.relatedAccounts.map((r) => ({
      accountID: r.accountID,
      createdAt: r.createdAt,
    })),
  };
}

export function bankAccountListView(b: BankAccount): Record<string, unknown> {
  const { accountNumber: _n, iban: _i, swiftBicCode: _s, ...rest } = bankAccountView(b);
  return rest;
}

export function bankAccountEventView(b: BankAccount): Record<string, unknown> {
  return {
    ...bankAccountView(b),
    ...(b.accountNumber !== undefined ? { accountNumber: obfuscate(b.accountNumber, 2, 3) } : {}),
    ...(b.iban !== undefined ? { iban: obfuscate(b.iban, 4, 4) } : {}),
    relatedAccounts: b.relatedAccounts,
  };
}
