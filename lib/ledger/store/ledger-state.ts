import type { AccountState, HeadState, LedgerState, Reads } from '../domain/change.js';
import { type FeatureSet, isEnabled } from '../domain/features.js';
import type { Mapping } from '../domain/mapping.js';
import { amountOfAttribute } from './amount-encoding.js';
import type { ItemView } from './change-items.js';
import { type ItemKey, keyString, type LedgerRef, ledgerKeys } from './keys.js';
import { heldOfItem, parseStoredPending } from './pending-items.js';
import { transactionIn } from './transaction-pages.js';

/**
 * The item keys a decision's reads name, but for its transactions (`transactionHolderKeys`: which item holds one
 * takes a read of its own). A ledger with PENDING_TRANSFERS reads each pair's held volume too, so
 * every decision over a pair sees its holds (the available check) without any command asking.
 */
export function readKeys(ledger: LedgerRef & { features?: FeatureSet }, reads: Reads): ItemKey[] {
  const holds = ledger.features !== undefined && isEnabled(ledger.features, 'PENDING_TRANSFERS');
  return [
    ...(reads.pairs ?? []).map(([account, asset]) => ledgerKeys.volume(ledger, account, asset)),
    ...(holds
      ? (reads.pairs ?? []).map(([account, asset]) => ledgerKeys.held(ledger, account, asset))
      : []),
    ...(reads.pending ?? []).map((id) => ledgerKeys.pending(ledger, id)),
    ...(reads.accounts ?? []).map((a) => ledgerKeys.account(ledger, a)),
    ...(reads.references ?? []).map((r) => ledgerKeys.reference(ledger, r)),
  ];
}

/** The ledger as a decision sees it, over the writer's item view. */
export function ledgerState(
  ledger: LedgerRef,
  view: ItemView,
  head: HeadState,
  mapping: Mapping | undefined,
): LedgerState {
  const get = (key: ItemKey) => view.get(keyString(key));
  return {
    head,
    ...(mapping ? { mapping } : {}),
    volume(account, asset) {
      const item = get(ledgerKeys.volume(ledger, account, asset));
      return item
        ? { input: amountOfAttribute(item.input), output: amountOfAttribute(item.output) }
        : undefined;
    },
    account(address) {
      const item = get(ledgerKeys.account(ledger, address));
      return item ? toAccountState(item) : undefined;
    },
    transaction(id) {
      // A transaction in a page is in the view under its own key too (transaction-pages.ts, putInView).
      return transactionIn(get(ledgerKeys.transaction(ledger, id)), id);
    },
    referenceTaken(reference) {
      return get(ledgerKeys.reference(ledger, reference)) !== undefined;
    },
    held(account, asset) {
      const item = get(ledgerKeys.held(ledger, account, asset));
      return item ? heldOfItem(item) : undefined;
    },
    pending(id) {
      const item = get(ledgerKeys.pending(ledger, id));
      return item ? parseStoredPending(String(item.body)) : undefined;
    },
  };
}

export function toAccountState(item: Record<string, unknown>): AccountState {
  return {
    address: String(item.address),
    metadata: (item.metadata ?? {}) as Record<string, string>,
    assets: [...((item.assets as Iterable<string> | undefined) ?? [])],
    firstUsage: String(item.firstUsage),
    firstUsageKey: String(item.firstUsageKey ?? ''),
    insertionDate: String(item.insertionDate),
    updatedAt: String(item.updatedAt),
  };
}
