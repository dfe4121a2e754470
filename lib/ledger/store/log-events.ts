import type { EventKind } from '../../../events/catalog.js';
import { DEFAULT_ENVIRONMENT } from '../../environments/environment-id.js';
import { type EventEnvelopeText, type EventSource, eventEnvelope } from '../../events/envelope.js';
import { MalformedEventError } from '../../events/malformed-event.js';
import { parseJson } from '../../json/bigint-json.js';
import type { LogType } from '../domain/logs.js';
import { mappingView } from '../domain/mapping.js';
import { type Transaction, transactionView, type VolumesView } from '../domain/transaction.js';
import { type LedgerRef, ledgerOfPartition } from './keys.js';
import { EVENT_ATTRIBUTE, rawEntriesOf } from './log-pages.js';
import { parseStoredMapping } from './mapping-item.js';

/**
 * The ledger's events travel in the ledger table itself (docs/data-model.md, "Events"): an item that carries
 * events has a string attribute `ev` (JSON text of what the event needs beyond the item), and the table's
 * stream hands it to dispatch. A log item carries its entry's event; the mapping item carries the
 * `ledger.updated_mapping` of the HEAD version that wrote it. No events-table row is written for the ledger,
 * which saves its two write units on every ledger write.
 */
export { EVENT_ATTRIBUTE } from './log-pages.js';

export type LedgerEvent = EventEnvelopeText;

const KIND_OF_LOG: Record<LogType, EventKind> = {
  NEW_TRANSACTION: 'ledger.committed_transactions',
  REVERTED_TRANSACTION: 'ledger.reverted_transaction',
  SET_METADATA: 'ledger.saved_metadata',
  DELETE_METADATA: 'ledger.deleted_metadata',
  CREATED_PENDING: 'ledger.created_pending',
  VOIDED_PENDING: 'ledger.voided_pending',
};

/**
 * The events a ledger-table item carries (its stream image, unmarshalled), in log order; none when it has no
 * `ev`. A log page (log-pages.ts) carries one event per entry, in log order. Payloads are exactly those the
 * ledger's commands emitted when events were events-table rows (the ledger's name, never its environment, which
 * the item's key names: `environmentOfKey(image.pk)` tells dispatch whose configs to match). Event ids derive
 * from seeds that name the ledger in its environment, so equal ledger names in two environments never share an
 * event id; the default environment's seeds are those of before environments.
 */
export function ledgerEventsOfImage(image: Record<string, unknown>): LedgerEvent[] {
  if (image[EVENT_ATTRIBUTE] === undefined) return [];
  const where = `ledger item ${String(image.pk)}/${String(image.sk)}`;
  if (typeof image[EVENT_ATTRIBUTE] !== 'string')
    throw new MalformedEventError(`${where} has an ev that is not a string`);
  const own = ledgerOfPartition(String(image.pk ?? ''));
  try {
    if (own?.partition === 'log') return logEvents(own.ledger, image, where);
    if (own?.partition === 'ledger' && image.sk === 'MAPPING') {
      objectOf(image[EVENT_ATTRIBUTE], `${where} ev`);
      return [eventEnvelope(mappingEvent(own.ledger, image))];
    }
  } catch (err) {
    if (err instanceof MalformedEventError) throw err;
    throw new MalformedEventError(
      `${where} cannot be read as an event: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  throw new MalformedEventError(`${where} has an ev but is no item that carries events`);
}

/** What makes a ledger's event seeds unique across environments (the default's are as before environments). */
function seedOf(ledger: LedgerRef): string {
  return ledger.environment === DEFAULT_ENVIRONMENT
    ? `ledger/${ledger.name}`
    : // `@` is in neither an environment id nor a ledger name: no seed of one ledger is another's.
      `ledger@${ledger.environment}/${ledger.name}`;
}

function logEvents(
  ledger: LedgerRef,
  image: Record<string, unknown>,
  where: string,
): LedgerEvent[] {
  return rawEntriesOf(image).flatMap((raw, i) => {
    const entry = objectOf(raw.body, `${where} body ${i}`);
    const extras = objectOf(raw.ev, `${where} ev ${i}`);
    return [
      logEvent(ledger, entry, extras),
      ...postEvents(ledger, entry, extras),
      ...monitorEvents(ledger, entry, extras),
    ].map(eventEnvelope);
  });
}

/**
 * The `ledger.balance_monitor_triggered` events of an entry, after its own event: one per crossing its write
 * decided (`monitors` of its extras, decide-batch.ts), with the transaction that caused it.
 */
function monitorEvents(
  ledger: LedgerRef,
  entry: Record<string, unknown>,
  extras: Record<string, unknown>,
): EventSource[] {
  if (extras.monitors === undefined) return [];
  if (!Array.isArray(extras.monitors))
    throw new MalformedEventError(`log entry ${String(entry.id)} has monitors that are no list`);
  const transaction = (entry.data as Record<string, unknown>).transaction;
  return extras.monitors.map((crossing: Record<string, unknown>, i) => ({
    type: 'ledger.balance_monitor_triggered',
    seed: `${seedOf(ledger)}/${String(entry.id)}/monitors/${i}`,
    idempotencyKey: String(entry.idempotencyKey ?? ''),
    date: String(entry.date),
    payload: {
      ledger: ledger.name,
      monitor: crossing.monitor,
      condition: crossing.condition,
      account: crossing.account,
      asset: crossing.asset,
      before: crossing.before,
      after: crossing.after,
      logId: entry.id,
      ...(transaction ? { transaction } : {}),
    },
  }));
}

/**
 * A post of a hold (a NEW_TRANSACTION whose data has `pending`): `ledger.posted_pending` after the transaction's own
 * event, and, when a final post released the rest, `ledger.voided_pending` with reason FINAL.
 */
function postEvents(
  ledger: LedgerRef,
  entry: Record<string, unknown>,
  extras: Record<string, unknown>,
): EventSource[] {
  const data = entry.data as Record<string, unknown>;
  if (entry.type !== 'NEW_TRANSACTION' || data.pending === undefined) return [];
  const post = data.post as { released?: unknown[] } | undefined;
  const released = (post?.released ?? []) as bigint[];
  const common = {
    idempotencyKey: String(entry.idempotencyKey ?? ''),
    date: String(entry.date),
  };
  return [
    {
      type: 'ledger.posted_pending',
      seed: `${seedOf(ledger)}/${String(entry.id)}/posted`,
      ...common,
      payload: {
        ledger: ledger.name,
        pending: data.pending,
        transaction: {
          ...(data.transaction as object),
          postCommitVolumes: volumes(extras.post, 'post'),
        },
      },
    },
    ...(released.some((r) => BigInt(r as bigint) > 0n)
      ? [
          {
            type: 'ledger.voided_pending' as const,
            seed: `${seedOf(ledger)}/${String(entry.id)}/released`,
            ...common,
            payload: { ledger: ledger.name, pending: data.pending, reason: 'FINAL', released },
          },
        ]
      : []),
  ];
}

function logEvent(
  ledger: LedgerRef,
  entry: Record<string, unknown>,
  extras: Record<string, unknown>,
): EventSource {
  const type = entry.type as LogType;
  const kind = KIND_OF_LOG[type];
  if (!kind)
    throw new MalformedEventError(
      `log entry of ledger ${ledger.name} has an unknown type ${String(entry.type)}`,
    );
  const data = entry.data as Record<string, unknown>;
  if (!data || typeof data !== 'object')
    throw new MalformedEventError(
      `log entry ${String(entry.id)} of ledger ${ledger.name} has no data`,
    );
  return {
    type: kind,
    // One event per log entry of a ledger, whatever the number of attempts or stream deliveries.
    seed: `${seedOf(ledger)}/${String(entry.id)}`,
    idempotencyKey: String(entry.idempotencyKey ?? ''),
    date: String(entry.date),
    payload: logPayload(ledger.name, type, data, extras),
  };
}

function logPayload(
  ledger: string,
  type: LogType,
  data: Record<string, unknown>,
  extras: Record<string, unknown>,
): Record<string, unknown> {
  switch (type) {
    case 'NEW_TRANSACTION':
      return {
        ledger,
        transactions: [
          { ...(data.transaction as object), postCommitVolumes: volumes(extras.post, 'post') },
        ],
        accountMetadata: data.accountMetadata,
      };
    case 'REVERTED_TRANSACTION':
      // The logged transactions are the reduced form (no volumes): the views with volumes follow from them.
      return {
        ledger,
        revertedTransaction: transactionView(data.revertedTransaction as Transaction, {
          post: volumes(extras.revertedPost, 'revertedPost'),
        }),
        revertTransaction: transactionView(data.transaction as Transaction, {
          post: volumes(extras.post, 'post'),
        }),
      };
    case 'SET_METADATA':
      return {
        ledger,
        targetType: data.targetType,
        targetId: String(data.targetId),
        metadata: data.metadata,
      };
    case 'DELETE_METADATA':
      return {
        ledger,
        targetType: data.targetType,
        targetId: String(data.targetId),
        key: data.key,
      };
    case 'CREATED_PENDING':
      return { ledger, pending: data.pending };
    case 'VOIDED_PENDING':
      return { ledger, pending: data.pending, reason: data.reason, released: data.released };
  }
}

function mappingEvent(ledger: LedgerRef, image: Record<string, unknown>): EventSource {
  const name = ledger.name;
  if (typeof image.mapping !== 'string')
    throw new MalformedEventError(`mapping item of ledger ${name} has no mapping`);
  if (typeof image.date !== 'string')
    throw new MalformedEventError(`mapping item of ledger ${name} has no date`);
  if (image.version === undefined)
    throw new MalformedEventError(`mapping item of ledger ${name} has no version`);
  return {
    type: 'ledger.updated_mapping',
    // One event per HEAD version of a ledger: the mapping item is overwritten, the version is not reused.
    seed: `${seedOf(ledger)}/head/${String(image.version)}`,
    idempotencyKey: '',
    date: image.date,
    payload: { ledger: name, mapping: mappingView(parseStoredMapping(image.mapping)) },
  };
}

function volumes(value: unknown, name: string): VolumesView {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new MalformedEventError(`ev has no ${name} volumes`);
  return value as VolumesView;
}

function objectOf(text: unknown, what: string): Record<string, unknown> {
  if (typeof text !== 'string') throw new MalformedEventError(`${what} is not a string`);
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    throw new MalformedEventError(`${what} is not JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new MalformedEventError(`${what} is not an object`);
  return value as Record<string, unknown>;
}
