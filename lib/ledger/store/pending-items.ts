import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import type { LedgerChange } from '../domain/change.js';
import type { HeldVolume, PendingPosting, PendingTransfer } from '../domain/pending.js';
import { amountAttribute, amountOfAttribute } from './amount-encoding.js';
import type { Write } from './change-items.js';
import { holdDueKeys, type LedgerRef, ledgerKeys } from './keys.js';

/**
 * How pending transfers (holds) and held volumes are laid out (PENDING_TRANSFERS, docs/data-model.md): a hold is one
 * item of exact JSON text, listed by id in its ledger's hold partition and, while it is unresolved with an expiry,
 * on the sparse due indexes the sweeper reads (the ledger's, and every ledger's `due`); a pair's held volume is one
 * item beside nothing else, read only by ledgers with the feature.
 */

/** A hold's item: its JSON body, its status (for list filters) and, while due to expire, its index entry. */
export function pendingItem(ledger: LedgerRef, pending: PendingTransfer): Record<string, unknown> {
  const due = pending.status === 'PENDING' && pending.expiresAtKey !== undefined;
  return {
    ...ledgerKeys.pending(ledger, pending.id),
    id: pending.id,
    status: pending.status,
    body: stringifyJson(pending),
    ...(due
      ? {
          gsi1pk: ledgerKeys.pendingDue(ledger),
          gsi1sk: ledgerKeys.pendingDueSort(pending.expiresAtKey!, pending.id),
          ...holdDueKeys.entry(ledger, pending.id, pending.expiresAtKey!),
        }
      : {}),
  };
}

export function parseStoredPending(body: string): PendingTransfer {
  const value = parseJson(body) as Record<string, unknown>;
  return {
    ...(value as unknown as PendingTransfer),
    id: Number(value.id),
    postings: (value.postings as Array<Record<string, unknown>>).map(
      (p) => ({ ...p }) as unknown as PendingPosting,
    ),
    transactions: ((value.transactions as unknown[]) ?? []).map(Number),
  };
}

export function heldItem(
  ledger: LedgerRef,
  account: string,
  asset: string,
  held: HeldVolume,
): Record<string, unknown> {
  return {
    ...ledgerKeys.held(ledger, account, asset),
    account,
    asset,
    pendingInput: amountAttribute(held.pendingInput),
    pendingOutput: amountAttribute(held.pendingOutput),
  };
}

export function heldOfItem(item: Record<string, unknown>): HeldVolume {
  return {
    pendingInput: amountOfAttribute(item.pendingInput),
    pendingOutput: amountOfAttribute(item.pendingOutput),
  };
}

/** The items of a change's holds and held volumes (nothing for a change that has none). */
export function pendingWrites(ledger: LedgerRef, table: string, change: LedgerChange): Write[] {
  return [
    ...(change.pendings ?? []).map((p) => ({
      item: { Put: { TableName: table, Item: pendingItem(ledger, p) } },
    })),
    ...(change.held ?? []).map(({ account, asset, held }) => ({
      item: { Put: { TableName: table, Item: heldItem(ledger, account, asset, held) } },
    })),
  ];
}
