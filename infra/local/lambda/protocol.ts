/**
 * The messages between the pool and a worker over Node's IPC channel. They are JSON (the channel's default
 * serialisation), as Lambda's own runtime API is: an event or result that JSON cannot carry fails here as it
 * would there, and big integers travel inside JSON strings (request bodies), never as JS numbers.
 */

export interface SerializedError {
  errorType: string;
  errorMessage: string;
}

/** The part of Lambda's context object that can cross a process boundary (the rest is rebuilt in the worker). */
export interface InvocationContext {
  awsRequestId: string;
  /** Epoch milliseconds after which the pool kills the worker. */
  deadlineMs: number;
}

export type ToWorker = { type: 'invoke'; id: number; event: unknown; context: InvocationContext };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-error'; error: SerializedError }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: SerializedError }
  /** An EMF line the function wrote on stdout: sent before the invocation's result, on the same channel. */
  | { type: 'metrics'; emf: string };

export function serializeError(err: unknown): SerializedError {
  if (err instanceof Error) return { errorType: err.name, errorMessage: err.message };
  return { errorType: 'Error', errorMessage: String(err) };
}
