import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { pairKey, type ScriptAccount, type ScriptStateReads } from '../domain/script-state.js';
import { amountOfAttribute } from './amount-encoding.js';
import { type ItemKey, type LedgerRef, ledgerKeys } from './keys.js';
import { toAccountState } from './ledger-state.js';

/**
 * What a script's plan reads (commands/script-transaction.ts), from the ledger's items: volume items for
 * balances, account items for metadata. `get` reads items by key — a consistent BatchGetItem for a direct write,
 * the sequenced writer's cache for a relayed one.
 */
export function scriptStateReads(
  ledger: LedgerRef,
  get: (keys: ItemKey[]) => Promise<Array<Record<string, unknown> | undefined>>,
): ScriptStateReads {
  return {
    async balances(pairs) {
      const items = await get(
        pairs.map(([account, asset]) => ledgerKeys.volume(ledger, account, asset)),
      );
      const out = new Map<string, bigint>();
      pairs.forEach(([account, asset], i) => {
        const item = items[i];
        if (item)
          out.set(
            pairKey(account, asset),
            amountOfAttribute(item.input) - amountOfAttribute(item.output),
          );
      });
      return out;
    },
    async accounts(accounts) {
      const items = await get(accounts.map((address) => ledgerKeys.account(ledger, address)));
      const out = new Map<string, ScriptAccount>();
      accounts.forEach((address, i) => {
        const item = items[i];
        if (item) {
          const { metadata, assets } = toAccountState(item);
          out.set(address, { metadata, assets });
        }
      });
      return out;
    },
  };
}

/** Plan reads straight from the table (strongly consistent). */
export const tableScriptState = (
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
): ScriptStateReads => scriptStateReads(ledger, (keys) => batchGetInOrder(doc, table, keys));
