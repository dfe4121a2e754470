/**
 * What every Lambda entry point wraps its handler in: from the module's load, this process's metrics go to an EMF
 * sink (Powertools Metrics); each invocation names itself to the log lines, and its metrics are written on stdout
 * before it answers — flushed per invocation, as Powertools' `logMetrics` does, errors included.
 */
import { type ObservabilityConfig, observabilityConfigFromVariables } from '../config/env.js';
import { EmfSink } from './emf-sink.js';
import { enterLambdaInvocation, type LambdaContextLike, leaveLambdaInvocation } from './logger.js';
import { installMetricSink } from './metrics.js';

export function withObservability<E, R, C extends LambdaContextLike = LambdaContextLike>(
  handler: (event: E, context?: C) => Promise<R>,
  config: ObservabilityConfig = observabilityConfigFromVariables(),
): (event: E, context?: C) => Promise<R> {
  const sink = new EmfSink(config.metricsNamespace, (problem) =>
    process.stderr.write(`${problem}\n`),
  );
  installMetricSink(sink);
  let invocations = 0;
  return async (event, context) => {
    enterLambdaInvocation(context ?? {}, invocations++ === 0 && !config.provisioned);
    try {
      return await handler(event, context);
    } finally {
      sink.flush();
      leaveLambdaInvocation();
    }
  };
}
