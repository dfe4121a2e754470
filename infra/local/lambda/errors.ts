/**
 * How an invocation can fail outside the handler's own answer. `gateway-errors.ts` is the one place that turns
 * these into what API Gateway answers the HTTP client.
 */

/** The handler threw (or rejected), or returned something Lambda could not serialise. */
export class FunctionError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
  ) {
    super(`${functionName}: ${errorType}: ${message}`);
    this.name = 'FunctionError';
  }
}

/** The worker process died during the invocation (`process.exit`, an uncaught error, a signal). */
export class FunctionCrashedError extends Error {
  constructor(functionName: string, exit: string) {
    super(`${functionName}: the worker process exited during the invocation (${exit})`);
    this.name = 'FunctionCrashedError';
  }
}

/** The invocation ran past its timeout; its worker was killed, as Lambda ends a timed-out container. */
export class FunctionTimeoutError extends Error {
  constructor(functionName: string, timeoutMs: number) {
    super(`${functionName}: the invocation timed out after ${timeoutMs} ms`);
    this.name = 'FunctionTimeoutError';
  }
}

/** A worker could not load the function's module (Lambda's init error): at start-up this fails the platform. */
export class FunctionInitError extends Error {
  constructor(functionName: string, detail: string) {
    super(`${functionName}: a worker failed to start: ${detail}`);
    this.name = 'FunctionInitError';
  }
}

/** The pool is stopping or stopped: nothing more runs. */
export class PoolStoppedError extends Error {
  constructor(functionName: string) {
    super(`${functionName}: the worker pool is stopped`);
    this.name = 'PoolStoppedError';
  }
}

/** The handler answered something API Gateway cannot turn into an HTTP response (a bad `statusCode`). */
export class InvalidResultError extends Error {
  constructor(detail: string) {
    super(`malformed Lambda proxy response: ${detail}`);
    this.name = 'InvalidResultError';
  }
}
