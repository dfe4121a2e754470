import { parseJson } from '../../json/bigint-json.js';
import type { Posting } from '../domain/postings.js';
import type { Transaction, VolumesView } from '../domain/transaction.js';
import type { ItemView, Write } from './change-items.js';
import { type ItemKey, keyString, type LedgerRef, ledgerKeys } from './keys.js';
import { consecutiveRuns } from './runs.js';

/**
 * Transaction items (docs/data-model.md, "Transaction pages"). A transaction is stored either in an item of its
 * own (`body`, keyed by its id) or in a *page*: one item holding consecutive transactions a commit created with one
 * timestamp (`bodies`), keyed like the first of them, with `last` the last id. A commit writes one page where it
 * would write a dozen items: on DynamoDB Local every item costs its one database thread about the same, and on
 * DynamoDB a page is priced by its size. A transaction is in exactly one item, so the item holding an id is the one
 * with the greatest key at or below the id's in its block. Pages never cross a block; a transaction with a
 * timestamp of its own, or alone in its commit, keeps an item of its own, as every transaction did before pages.
 */

export interface StoredTransaction {
  tx: Transaction;
  post: VolumesView;
}

/** Transactions are stored as exact JSON text (amounts as big integers) with their post-commit volumes. */
export function parseStoredTransaction(body: string): StoredTransaction {
  const { postCommitVolumes, id, postings, ...rest } = parseJson(body) as Record<string, unknown>;
  const tx = { ...rest, id: Number(id), postings: postings as Posting[] } as Transaction;
  return { tx, post: postCommitVolumes as VolumesView };
}

/**
 * A page's texts stay small: a change to one of its transactions (metadata, a revert) rewrites the page, and
 * DynamoDB prices a write by the item's size (8 KB: at most 8 write units, about a dozen transactions of 600 bytes).
 */
export const MAX_TRANSACTION_PAGE_BYTES = 8_192;

type Item = Record<string, unknown>;

/** Ledgers keyed in blocks write pages; ledgers created before blocks one item a transaction, as they always did. */
export const writesTransactionPages = (ledger: LedgerRef): boolean =>
  ledger.transactionKeys !== undefined;

export const isTransactionPage = (item: Item): boolean => Array.isArray(item.bodies);

/** The first and last transaction ids an item holds (the same for an item of one transaction). */
export function idRange(item: Item): { first: number; last: number } {
  const first = Number(item.id);
  return { first, last: isTransactionPage(item) ? Number(item.last) : first };
}

/** The exact texts of the transactions an item holds, in id order. */
export function transactionBodies(item: Item): string[] {
  return isTransactionPage(item) ? (item.bodies as unknown[]).map(String) : [String(item.body)];
}

/** Transaction `id` from the item holding it; undefined when it does not hold it. */
export function transactionIn(item: Item | undefined, id: number): StoredTransaction | undefined {
  if (!item) return undefined;
  const { first, last } = idRange(item);
  if (id < first || id > last) return undefined;
  return parseStoredTransaction(transactionBodies(item)[id - first]!);
}

/**
 * Each transaction of an item as a list record of its own, with a position of its own: a page's records name the
 * page and themselves (`<page key>#<id>` as their sort key, so a cursor inside a page finds the page again), and by
 * time take `<timestamp>#<id>` in the index. An item of one transaction is its own record.
 */
export function transactionRecords(item: Item): Item[] {
  if (!isTransactionPage(item)) return [item];
  const { first } = idRange(item);
  return transactionBodies(item).map((body, i) => ({
    pk: item.pk,
    sk: `${String(item.sk)}#${pad(first + i)}`,
    gsi1pk: item.gsi1pk,
    gsi1sk: `${String(item.timestamp)}#${pad(first + i)}`,
    id: first + i,
    timestamp: item.timestamp,
    body,
  }));
}

/** The key of the page a cursor's position is inside of (a record of a page: `<page key>#<id>`). */
export function holderOfPosition(position: Record<string, string>): ItemKey | undefined {
  const { pk, sk } = position;
  const at = sk?.indexOf('#') ?? -1;
  return pk !== undefined && sk !== undefined && at > 0 ? { pk, sk: sk.slice(0, at) } : undefined;
}

/** Whether a record comes after a cursor's position in the reading direction. */
export function beyondPosition(
  record: Item,
  position: Record<string, string>,
  order: 'id' | 'time',
  forward: boolean,
): boolean {
  const mine = order === 'id' ? Number(record.id) : String(record.gsi1sk);
  const theirs = order === 'id' ? idOfPosition(position.sk ?? '') : String(position.gsi1sk ?? '');
  // A partition walk's own positions (`~`, `!`: the end of a block) are between items, never inside one.
  if (Number.isNaN(theirs)) return true;
  return forward ? mine > theirs : mine < theirs;
}

const idOfPosition = (sk: string) => Number(sk.slice(sk.indexOf('#') + 1));

const pad = (n: number) => String(n).padStart(15, '0');

/**
 * Puts an item in a decision's view under its key and, for a page, under each of its transactions' keys too:
 * decisions find a transaction by its own key whichever item holds it.
 */
export function putInView(view: ItemView, item: Item, keyOf: (id: number) => ItemKey): void {
  view.set(keyString(item as ItemKey), item);
  if (!isTransactionPage(item)) return;
  const { first, last } = idRange(item);
  for (let id = first + 1; id <= last; id++) view.set(keyString(keyOf(id)), item);
}

/** The page holding `item`'s transactions with one of them replaced (a change to a transaction in a page). */
export function pageWith(page: Item, id: number, body: string): Item {
  const { first } = idRange(page);
  const bodies = transactionBodies(page);
  bodies[id - first] = body;
  return { ...page, bodies };
}

/**
 * Consecutive new transactions' items (one transaction each, in id order) gathered into pages: a run of
 * consecutive ids in one block (same partition key) with one timestamp, up to MAX_TRANSACTION_PAGE_BYTES. A run of
 * one stays the transaction's own item.
 */
export function transactionPages(items: readonly Item[]): Item[][] {
  return consecutiveRuns(
    items,
    (item) => String(item.body).length,
    (run, item, bytes, size) => {
      const prev = run[run.length - 1]!;
      return (
        Number(item.id) !== Number(prev.id) + 1 ||
        item.pk !== prev.pk ||
        item.timestamp !== prev.timestamp ||
        bytes + size > MAX_TRANSACTION_PAGE_BYTES
      );
    },
  );
}

/** One item for a run of `transactionPages`: the page, or the transaction's own item for a run of one. */
export function pageItem(run: readonly Item[]): Item {
  const first = run[0]!;
  if (run.length === 1) return first;
  return {
    pk: first.pk,
    sk: first.sk,
    gsi1pk: first.gsi1pk,
    gsi1sk: first.gsi1sk,
    id: first.id,
    last: run[run.length - 1]!.id,
    timestamp: first.timestamp,
    bodies: run.map((i) => String(i.body)),
  };
}

/**
 * A commit's writes with its new transactions' items gathered into pages (`transactionPages`, over the items as
 * created, so a repair rebuilding them from the log cuts the same pages), each page holding its transactions as
 * the commit leaves them (a transaction created and changed in one commit is written once). A page may follow
 * the commit like the items it replaces (`deferrable`) only when none of them was written twice. The view gets
 * the pages under their transactions' keys.
 */
export function foldTransactionPages<W extends Write>(
  ledger: LedgerRef,
  view: ItemView,
  writes: readonly W[],
): W[] {
  if (!writesTransactionPages(ledger)) return [...writes];
  const keyOf = (id: number) => ledgerKeys.transaction(ledger, id);
  const created = writes.filter(
    (w) => w.deferrable === true && w.item.Put !== undefined && !isTransactionPage(w.item.Put.Item),
  );
  if (created.length < 2) return [...writes];
  const targets = new Map<string, number>();
  for (const w of writes) {
    const key = w.item.Put?.Item;
    if (key)
      targets.set(keyString(key as ItemKey), (targets.get(keyString(key as ItemKey)) ?? 0) + 1);
  }
  const items = created.map((w) => w.item.Put!.Item).sort((a, b) => Number(a.id) - Number(b.id));
  const folded = new Set<string>();
  const pages: W[] = [];
  for (const run of transactionPages(items)) {
    if (run.length < 2) continue;
    const keys = run.map((i) => keyString(i as ItemKey));
    const page = pageItem(keys.map((k, i) => view.get(k) ?? run[i]!));
    for (const k of keys) folded.add(k);
    putInView(view, page, keyOf);
    const once = keys.every((k) => targets.get(k) === 1);
    pages.push({
      item: { Put: { TableName: created[0]!.item.Put!.TableName, Item: page } },
      ...(once ? { deferrable: true } : {}),
    } as W);
  }
  const kept = writes.filter(
    (w) => !(w.item.Put && folded.has(keyString(w.item.Put.Item as ItemKey))),
  );
  return [...kept, ...pages];
}
