import type { TransactWriteItem } from '@aws-sdk/lib-dynamodb';

type Sdk = TransactWriteItem;
type Keyed<T> = Omit<NonNullable<T>, 'Key'> & { Key: Record<string, unknown> };

/**
 * One action of a TransactWriteItems: the one type every store builds its transactions from. The SDK's own, with
 * a Put's item and the other actions' key required — a store always gives them — so code that reads a
 * transaction back (the ledger's commit, for one) needs no assertions.
 */
export interface TransactItem {
  Put?: Omit<NonNullable<Sdk['Put']>, 'Item'> & { Item: Record<string, unknown> };
  Delete?: Keyed<Sdk['Delete']>;
  Update?: Keyed<Sdk['Update']>;
  ConditionCheck?: Keyed<Sdk['ConditionCheck']>;
}
