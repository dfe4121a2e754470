/**
 * Reads what the runtime knows about a request: API Gateway's event under Lambda (`hono/aws-lambda`
 * puts it in `env.event`), the Node socket under `@hono/node-server` (`env.incoming`).
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

export function sourceAddress(env: Record<string, unknown> | undefined): string {
  const event = env?.event as LambdaEventLike | undefined;
  const fromGateway =
    event?.requestContext?.http?.sourceIp ?? event?.requestContext?.identity?.sourceIp;
  if (fromGateway) return fromGateway;
  const incoming = env?.incoming as NodeIncomingLike | undefined;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

export function gatewayRequestId(env: Record<string, unknown> | undefined): string | undefined {
  const event = env?.event as LambdaEventLike | undefined;
  return event?.requestContext?.requestId;
}
