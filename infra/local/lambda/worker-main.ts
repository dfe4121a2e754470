/**
 * A worker process: one Lambda container. It loads the function's module once (so its configuration is read
 * once, from this process's variables, as in Lambda), then runs the invocations the pool sends, one at a
 * time. Argument: the module's path and the name of its handler export.
 */
import { pathToFileURL } from 'node:url';
import { isEmfLine } from '../metrics/emf.js';
import {
  type FromWorker,
  type InvocationContext,
  serializeError,
  type ToWorker,
} from './protocol.js';

type Handler = (event: unknown, context: object) => unknown;

const [modulePath, exportName = 'handler'] = process.argv.slice(2);

function send(message: FromWorker): void {
  process.send!(message);
}

forwardMetrics();

// The pool owns this process's life: Ctrl+C reaches the whole process group, and the parent stops its
// workers itself. Without the parent (its IPC channel closed, even by SIGKILL) a worker has no reason to live.
process.on('SIGINT', () => undefined);
// A profiled worker (`--cpu-prof`) writes its profile only on a normal exit, so its stop is one.
if (process.execArgv.includes('--cpu-prof')) process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));

let handler: Handler;
try {
  if (!modulePath) throw new Error('no function module given');
  const loaded = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  const candidate = loaded[exportName];
  if (typeof candidate !== 'function')
    throw new Error(`${modulePath} has no function export "${exportName}"`);
  handler = candidate as Handler;
} catch (err) {
  process.send!({ type: 'init-error', error: serializeError(err) } satisfies FromWorker, () =>
    process.exit(1),
  );
  // Exits in the send callback, once the pool has the reason; nothing else runs meanwhile.
  handler = await new Promise<never>(() => undefined);
}

function lambdaContext(context: InvocationContext): object {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local';
  return {
    awsRequestId: context.awsRequestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION ?? 'us-east-1'}:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${process.pid}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, context.deadlineMs - Date.now()),
  };
}

process.on('message', (message: ToWorker) => {
  if (message.type !== 'invoke') return;
  void (async () => {
    let result: unknown;
    try {
      // Lambda answers `null` for a handler that returns nothing; JSON has no `undefined`.
      result = (await handler(message.event, lambdaContext(message.context))) ?? null;
    } catch (err) {
      return send({ type: 'error', id: message.id, error: serializeError(err) });
    }
    try {
      JSON.stringify(result); // what JSON cannot carry (a bigint, a cycle) fails as Lambda's marshalling does
    } catch (err) {
      return send({
        type: 'error',
        id: message.id,
        error: { errorType: 'Runtime.MarshalError', errorMessage: (err as Error).message },
      });
    }
    send({ type: 'result', id: message.id, result });
  })();
});

send({ type: 'ready' });

/**
 * In Lambda, the EMF lines a function writes on stdout become CloudWatch metrics. Here they go to the pool over
 * the IPC channel instead — in order with the results, so they arrive before the answer they belong to — and
 * the platform's `/_metrics` counts them; every other line is written as it was.
 */
function forwardMetrics(): void {
  const write = process.stdout.write.bind(process.stdout) as (
    chunk: string | Uint8Array,
    ...rest: unknown[]
  ) => boolean;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (!text.includes('"_aws"')) return write(chunk, ...rest);
    const kept = text.split('\n').filter((line) => {
      if (!isEmfLine(line)) return true;
      send({ type: 'metrics', emf: line });
      return false;
    });
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (kept.join('').length > 0) return write(kept.join('\n'), ...rest);
    callback?.();
    return true;
  }) as typeof process.stdout.write;
}
