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
export function durableWrites(
  handler: FetchHandler,
  dynamo: DynamoDBClient,
  table: string,
): FetchHandler {
  const barrier = sharedBarrier(() =>
    dynamo.send(
      new GetItemCommand({
        TableName: table,
        Key: { pk: { S: 'LOCAL#durability-barrier' }, sk: { S: '-' } },
        ConsistentRead: true,
      }),
    ),
  );
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

/**
 * One barrier read for many answers: a caller needs a read *issued after* its answer came back. While one read is
 * in flight, callers arriving then wait for the next one, which starts when it returns and serves all of them —
 * so concurrent writes share one read in flight instead of one each, and none trusts a read issued before it.
 */
export function sharedBarrier(read: () => Promise<unknown>): () => Promise<void> {
  let inFlight: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const current = read().then(() => undefined);
    inFlight = current;
    const settle = () => {
      if (inFlight === current) inFlight = undefined;
    };
    current.then(settle, settle);
    return current;
  };
  return () => {
    if (!inFlight) return start();
    // Joins the read that starts once the one in flight is done (it started before this caller's answer).
    next ??= inFlight
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
