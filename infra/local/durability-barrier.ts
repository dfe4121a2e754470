import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { FetchHandler } from './gateway.js';

/** Methods that only read: their answers acknowledge nothing. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * DynamoDB Local answers `TransactWriteItems` before the transaction is committed: it queues SQLite's COMMIT
 * on its single database thread without waiting for it (`SQLiteDBAccess.commitTransaction`), so a crash right
 * after the answer loses the transaction. Single-item writes wait for their job, and the thread runs jobs in
 * order, so any read issued after an answer came back returns only once every COMMIT queued before it has
 * run. The gateway therefore holds the answer to a write until such a read (a consistent GetItem of an item
 * that never exists) has returned: what a client was told is written is in the database file by then.
 * One round trip per write, locally only; DynamoDB itself answers after the commit.
 */
export function durableWrites(handler: FetchHandler, barrier: SharedBarrier): FetchHandler {
  return async (request, bindings) => {
    const response = await handler(request, bindings);
    if (READ_METHODS.has(request.method)) return response;
    try {
      await barrier();
    } catch {
      // The database did not answer: whether the write lasts is unknown, which is what a 503 says.
      return Response.json({ message: 'Service Unavailable' }, { status: 503 });
    }
    return response;
  };
}

/** The barrier's read: a consistent GetItem of an item that never exists. */
export function durabilityBarrier(
  dynamo: DynamoDBClient,
  table: string,
  earlyAnswers?: EarlyAnswers,
): SharedBarrier {
  return sharedBarrier(
    () =>
      dynamo.send(
        new GetItemCommand({
          TableName: table,
          Key: { pk: { S: 'LOCAL#durability-barrier' }, sk: { S: '-' } },
          ConsistentRead: true,
        }),
      ),
    earlyAnswers,
  );
}

/** Operations DynamoDB Local may answer before their COMMIT has run (the others wait for theirs). */
const ANSWERED_EARLY = new Set([
  'DynamoDB_20120810.TransactWriteItems',
  'DynamoDB_20120810.BatchWriteItem',
]);

/**
 * The successful answers to writes DynamoDB Local may give before committing, counted as they arrive — by the one
 * HTTP handler every DynamoDB client of the embedded platform's process shares (ledger-events/observing-handler.ts).
 * A barrier read issued once `count` was n comes after the first n of them. Every service that answers an HTTP
 * write builds its clients on that handler; the platform's own client (tables, this read, the pollers' checkpoints)
 * writes nothing a request is answered for.
 */
export class EarlyAnswers {
  private answered = 0;

  get count(): number {
    return this.answered;
  }

  observe(target: string | undefined): void {
    if (target !== undefined && ANSWERED_EARLY.has(target)) this.answered++;
  }
}

/** Resolves once a barrier read covers every write the caller was answered. */
export type SharedBarrier = () => Promise<void>;

/**
 * One barrier read for many answers. A caller needs a read *issued after* its answer came back: while one read is
 * in flight, callers arriving then wait for the next one, which starts when it returns and serves all of them — so
 * concurrent writes share one read in flight instead of one each, and none trusts a read issued before it.
 * With `earlyAnswers` (every early-answered write of the process counted as it arrives), a read in flight that was
 * issued after every such answer so far covers the caller too: the embedded ledger reads the barrier the moment a
 * batch lands, before its next commit, and the batch's requesters join that read instead of one queued behind the
 * next commit on the emulator's one database thread.
 */
export function sharedBarrier(
  read: () => Promise<unknown>,
  earlyAnswers?: EarlyAnswers,
): SharedBarrier {
  let inFlight: { done: Promise<void>; covers: number } | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const current = { covers: earlyAnswers?.count ?? 0, done: read().then(() => undefined) };
    inFlight = current;
    const settle = () => {
      if (inFlight === current) inFlight = undefined;
    };
    current.done.then(settle, settle);
    return current.done;
  };
  return () => {
    if (!inFlight) return start();
    if (earlyAnswers && inFlight.covers >= earlyAnswers.count) return inFlight.done;
    // Joins the read that starts once the one in flight is done (it started before this caller's answer).
    next ??= inFlight.done
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}
