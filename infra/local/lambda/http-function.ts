import { randomBytes } from 'node:crypto';
import { sourceAddress } from '../../../lib/http/runtime-bindings.js';
import type { Logger } from '../../../lib/observability/logger.js';
import type { FetchHandler } from '../gateway.js';
import { gatewayErrorResponse } from './gateway-errors.js';
import { httpApiEvent } from './http-event.js';
import { httpResponse } from './http-response.js';
import type { FunctionPool } from './pool.js';

/**
 * A Lambda function behind API Gateway's HTTP API, as a fetch handler for the local gateway: each request
 * becomes a payload 2.0 event for the pool, and the function's result (or its failure) the HTTP response.
 */
export function httpFunction(
  pool: Pick<FunctionPool, 'invoke'>,
  options: { prefix: string; logger: Logger },
): FetchHandler {
  return async (request, bindings) => {
    // API Gateway's own request id, which the services adopt as theirs and which it returns in `apigw-requestid`.
    const requestId = randomBytes(10).toString('base64');
    const event = await httpApiEvent(request, {
      prefix: options.prefix,
      sourceIp: sourceAddress(bindings),
      requestId,
      now: new Date(),
    });
    let response: Response;
    try {
      response = httpResponse(await pool.invoke(event), request.method);
    } catch (err) {
      options.logger.log('error', 'lambda invocation failed', {
        requestId,
        path: event.rawPath,
        error: err instanceof Error ? err.message : String(err),
      });
      response = gatewayErrorResponse(err);
    }
    response.headers.set('apigw-requestid', requestId);
    return response;
  };
}
