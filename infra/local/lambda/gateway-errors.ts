import { FunctionTimeoutError, PoolStoppedError } from './errors.js';

/**
 * What API Gateway answers when the function gave no usable response: its own bodies, not the contract's
 * error shape, since the service never saw the failure. A timeout is a 504; a pool that is shutting down
 * a 503; a crash, an unhandled error or a malformed result a 502, as API Gateway does for a failed integration.
 */
export function gatewayErrorResponse(err: unknown): Response {
  if (err instanceof FunctionTimeoutError)
    return Response.json({ message: 'Endpoint request timed out' }, { status: 504 });
  if (err instanceof PoolStoppedError)
    return Response.json({ message: 'Service Unavailable' }, { status: 503 });
  return Response.json({ message: 'Internal Server Error' }, { status: 502 });
}
