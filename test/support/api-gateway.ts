import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** An API Gateway HTTP API (payload v2) event, as the gateway hands a request to a service's Lambda. */
export function httpApiEvent(
  method: string,
  path: string,
  options: { service: string; body?: string; headers?: Record<string, string>; requestId?: string },
): APIGatewayProxyEventV2 {
  const routeKey = `ANY /api/${options.service}/{proxy+}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'abc123.execute-api.us-east-1.amazonaws.com', ...options.headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'test' },
      requestId: options.requestId ?? 'gw-request-1',
      routeKey,
      stage: '$default',
      time: '22/Nov/2026:10:00:00 +0000',
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(options.body !== undefined ? { body: options.body } : {}),
  } as APIGatewayProxyEventV2;
}
