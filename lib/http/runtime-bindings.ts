/**
 * Reads what the runtime knows about a request: API Gateway's event under Lambda (`hono/aws-lambda`
 * puts it in `c.env.event`: Hono's bindings), the Node socket under `@hono/node-server` (`c.env.incoming`).
 */

interface LambdaEventLike {
  requestContext?: {
    requestId?: string;
    http?: { sourceIp?: string };
    identity?: { sourceIp?: string };
  };
}

interface NodeIncomingLike {
  socket?: { remoteAddress?: string };
}

export function sourceAddress(bindings: Record<string, unknown> | undefined): string {
  const event = bindings?.event as LambdaEventLike | undefined;
  const fromGateway =
    event?.requestContext?.http?.sourceIp ?? event?.requestContext?.identity?.sourceIp;
  if (fromGateway) return fromGateway;
  const incoming = bindings?.incoming as NodeIncomingLike | undefined;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

export function gatewayRequestId(
  bindings: Record<string, unknown> | undefined,
): string | undefined {
  const event = bindings?.event as LambdaEventLike | undefined;
  return event?.requestContext?.requestId;
}
