/** How SQS names a queue that does not exist: the JSON protocol's name, and the query protocol's. */
const QUEUE_GONE = /QueueDoesNotExist|NonExistentQueue/;

/** Whether an SQS call failed because its queue does not exist (deleted, or never created). */
export const isQueueGone = (err: unknown): boolean =>
  QUEUE_GONE.test((err as Error | undefined)?.name ?? '');
