import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { parseJson } from '../../json/bigint-json.js';
import type { LogEntry } from '../domain/logs.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import { consecutiveRuns } from './runs.js';

/**
 * Log items (docs/data-model.md, "Log"). A commit's log entries are one item: a commit of one entry writes the
 * single-entry item (`body`, `ev`, `req`), a commit of several — a group commit, an atomic bulk — one *page*
 * (`z`: every entry's body, extras and request, deflated; `ev` empty), keyed like an entry by its first log id, with
 * `last` its last.
 * Pages cost write units by their total size, not per entry: 26 entries of 700 bytes are 36 units as one page and
 * 52 as 26 items. A page's texts are stored deflated (`z`): entries of one batch repeat their keys and accounts,
 * so a page shrinks several times, and with it the write units on the log's one partition key, which bounds a
 * busy ledger on DynamoDB. Readers see entries either way (pages written before `z` keep their plain texts).
 */

/** The attribute of a ledger-table item that carries events (see log-events.ts). */
export const EVENT_ATTRIBUTE = 'ev';

/** A stored log entry: its body is the exact JSON the writer hashed, amounts as big integers. */
export function parseStoredLog(body: string): LogEntry {
  const { id, type, data, date, idempotencyKey, schemaVersion, hash } = parseJson(body) as Record<
    string,
    unknown
  >;
  return {
    id: Number(id),
    type: type as LogEntry['type'],
    data: idsAsNumbers(data) as Record<string, unknown>,
    date: String(date),
    idempotencyKey: String(idempotencyKey ?? ''),
    ...(typeof schemaVersion === 'string' ? { schemaVersion } : {}),
    hash: String(hash ?? ''),
  };
}

/** Keys of log data holding ids (transaction ids, a metadata target's id), not amounts. */
const ID_KEYS = new Set(['id', 'targetId']);

/**
 * The exact parser reads every integer as bigint. Ids inside log data go back to numbers, as on transactions,
 * so `Formance-Bigint-As-String` turns amounts into strings but not ids. Either prints the same digits, so the
 * hash over the data is unchanged.
 */
function idsAsNumbers(value: unknown, key?: string): unknown {
  if (typeof value === 'bigint')
    return key !== undefined && ID_KEYS.has(key) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  if (Array.isArray(value)) return value.map((v) => idsAsNumbers(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, idsAsNumbers(v, k)]));
  }
  return value;
}

/** One log entry as stored: the exact text hashed, its event's extras (JSON text), the relayed request that wrote it. */
export interface RawLogEntry {
  body: string;
  ev: string;
  req?: string;
}

/** A log entry read back. */
export interface StoredLogEntry {
  log: LogEntry;
  /** What its event needs beyond the entry (post-commit volumes). */
  extras: Record<string, unknown>;
  /** The relayed request that wrote it (group commit), for repairs. */
  req?: string;
}

/** A page stays well under DynamoDB's 400 KB item limit; a commit whose entries exceed it writes several pages. */
export const MAX_LOG_PAGE_BYTES = 300_000;

export function singleLogItem(
  ledger: LedgerRef,
  log: LogEntry,
  entry: RawLogEntry,
): Record<string, unknown> {
  return {
    ...ledgerKeys.log(ledger, log.id),
    id: log.id,
    type: log.type,
    date: log.date,
    body: entry.body,
    [EVENT_ATTRIBUTE]: entry.ev,
    ...(entry.req ? { req: entry.req } : {}),
  };
}

/** The entries of a log item, single or page (deflated or plain), in log order. */
export function rawEntriesOf(item: Record<string, unknown>): RawLogEntry[] {
  if (item[PAGE_TEXTS] instanceof Uint8Array) return pageEntries(inflatedTexts(item[PAGE_TEXTS]));
  if (Array.isArray(item.bodies)) {
    const evs =
      typeof item[EVENT_ATTRIBUTE] === 'string'
        ? (JSON.parse(item[EVENT_ATTRIBUTE]) as unknown[])
        : [];
    return pageEntries({
      bodies: item.bodies.map(String),
      evs,
      reqs: Array.isArray(item.reqs) ? item.reqs.map(String) : [],
    });
  }
  return [
    {
      body: String(item.body),
      ev: String(item[EVENT_ATTRIBUTE] ?? '{}'),
      ...(typeof item.req === 'string' ? { req: item.req } : {}),
    },
  ];
}

/** The attribute of a page holding its entries' texts, deflated (`PageTexts` as JSON). */
const PAGE_TEXTS = 'z';

/** A page's texts: each entry's body, its extras (`ev`) and the request that wrote it ('' for none). */
interface PageTexts {
  bodies: string[];
  evs: unknown[];
  reqs: string[];
}

function pageEntries({ bodies, evs, reqs }: PageTexts): RawLogEntry[] {
  return bodies.map((body, i) => ({
    body,
    ev: typeof evs[i] === 'string' ? (evs[i] as string) : '{}',
    ...(reqs[i] ? { req: reqs[i] } : {}),
  }));
}

function inflatedTexts(bytes: Uint8Array): PageTexts {
  const texts = JSON.parse(inflateRawSync(bytes).toString('utf8')) as Partial<PageTexts>;
  return {
    bodies: (texts.bodies ?? []).map(String),
    evs: texts.evs ?? [],
    reqs: (texts.reqs ?? []).map(String),
  };
}

export function storedEntriesOf(item: Record<string, unknown>): StoredLogEntry[] {
  return rawEntriesOf(item).map((raw) => ({
    log: parseStoredLog(raw.body),
    extras: parseJson(raw.ev) as Record<string, unknown>,
    ...(raw.req ? { req: raw.req } : {}),
  }));
}

/** What an entry adds to its page's size, as pages are cut (by characters of its texts). */
export function logEntryBytes(single: Record<string, unknown>): number {
  return (
    String(single.body).length +
    String(single[EVENT_ATTRIBUTE]).length +
    String(single.req ?? '').length
  );
}

/**
 * The log items of one commit's entries (given as their single-entry items, in log order): consecutive entries
 * gathered into pages of at most MAX_LOG_PAGE_BYTES. One entry stays a single-entry item.
 */
export function logPages(
  singles: ReadonlyArray<Record<string, unknown>>,
): Array<Record<string, unknown>> {
  if (singles.length <= 1) return [...singles];
  const pages = consecutiveRuns(
    singles,
    logEntryBytes,
    (_, __, bytes, size) => bytes + size > MAX_LOG_PAGE_BYTES,
  );
  return pages.map((entries) => (entries.length === 1 ? entries[0]! : pageItem(entries)));
}

function pageItem(entries: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  const first = entries[0]!;
  const texts: PageTexts = {
    bodies: entries.map((e) => String(e.body)),
    evs: entries.map((e) => String(e[EVENT_ATTRIBUTE])),
    reqs: entries.map((e) => (typeof e.req === 'string' ? e.req : '')),
  };
  return {
    pk: first.pk,
    sk: first.sk,
    id: first.id,
    last: entries[entries.length - 1]!.id,
    [PAGE_TEXTS]: new Uint8Array(deflateRawSync(JSON.stringify(texts))),
    // Present on every item that carries events (the stream's filter selects on it); this page's are in `z`.
    [EVENT_ATTRIBUTE]: '',
  };
}

/** A commit holds at most 100 actions, so no page holds more entries than this. */
const MAX_ENTRIES_PER_PAGE = 100;

/**
 * The log entries with ids in [first, last], in order (strongly consistent). A page starts at most
 * MAX_ENTRIES_PER_PAGE ids before any entry it holds, so one key range finds every page that may hold them.
 */
export async function readLogRange(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  first: number,
  last: number,
): Promise<StoredLogEntry[]> {
  const entries: StoredLogEntry[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: {
          ':p': ledgerKeys.logPartition(ledger),
          ':a': ledgerKeys.log(ledger, Math.max(0, first - MAX_ENTRIES_PER_PAGE)).sk,
          ':b': ledgerKeys.log(ledger, last).sk,
        },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of (result.Items ?? []) as Array<Record<string, unknown>>)
      entries.push(...storedEntriesOf(item).filter((e) => e.log.id >= first && e.log.id <= last));
    start = result.LastEvaluatedKey;
  } while (start);
  return entries;
}
