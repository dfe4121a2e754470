import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  type HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { StageConfig } from './config.js';
import { acknowledge } from './nag.js';
import { retentionDays } from './retention.js';

/** The HTTP services, each served under `/api/<service>` by its own function (the platform service's too). */
export const HTTP_SERVICES = ['auth', 'ledger', 'webhooks', 'payments', 'platform'] as const;
export type HttpService = (typeof HTTP_SERVICES)[number];

/**
 * One JSON line per request. HTTP API access logs know only `$context` variables; the request id is the
 * same one the functions log (API Gateway's), so a request can be followed from the gateway into a function.
 */
export const ACCESS_LOG_FIELDS: Record<string, string> = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
  userAgent: '$context.identity.userAgent',
};

/**
 * API Gateway HTTP API in front of the service functions: `/api/<service>` and `/api/<service>/{proxy+}`,
 * any method, payload format 2.0 (what `hono/aws-lambda` reads). No authorizer: each service verifies tokens
 * itself (shared bearer middleware), and the auth service's token and discovery routes must stay public.
 * The `$default` stage carries the access logs and the default throttling.
 */
export class PlatformApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, config: StageConfig, physicalPrefix: string) {
    super(scope, id);
    this.api = new HttpApi(this, 'http-api', {
      apiName: `${physicalPrefix}api`,
      description: 'Serverless financial platform: auth, ledger, webhooks and payments',
      // The stage is created below, with logs and throttling the default stage of HttpApi cannot take.
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'access-logs', {
      logGroupName: `/aws/apigateway/${physicalPrefix}api/access`,
      retention: retentionDays(config.logRetentionDays),
      removalPolicy: config.stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stage = this.api.addStage('default-stage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: config.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /**
   * `GET /versions` (the reference gateway's service list, read by the SDK's getVersions): public, served by the
   * auth function (functions/auth.ts), which reports each service's table health.
   */
  routeVersions(fn: IFunction): void {
    const integration = new HttpLambdaIntegration('versions-integration', fn, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    for (const route of this.api.addRoutes({
      path: '/versions',
      methods: [HttpMethod.GET],
      integration,
    })) {
      acknowledge(route, {
        id: 'AwsSolutions-APIG4',
        reason:
          'GET /versions is public, as the reference platform serves it: service names, versions and health, no data.',
      });
    }
  }

  /**
   * The API reference (`GET /docs`, `/docs/{proxy+}`: the page and Scalar's bundle) and the merged OpenAPI
   * document (`GET /openapi.json`): public like the services' own documents, served by the auth function from
   * files bundled beside it (infra/stacks/bundled-files.ts, `docsSite`).
   */
  routeDocs(fn: IFunction): void {
    const integration = new HttpLambdaIntegration('docs-integration', fn, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    for (const path of ['/docs', '/docs/{proxy+}', '/openapi.json']) {
      for (const route of this.api.addRoutes({ path, methods: [HttpMethod.GET], integration })) {
        acknowledge(route, {
          id: 'AwsSolutions-APIG4',
          reason:
            'The API reference and its OpenAPI document are public, as every service serves its own: they describe the API, no data.',
        });
      }
    }
  }

  /**
   * The web console (`GET /console`, `/console/{proxy+}`: its page and content-hashed assets), served by its own
   * function from files bundled beside it, on the API's origin: the console calls the token endpoint and the
   * services on its own origin, under a content security policy that allows nothing else.
   */
  routeConsole(fn: IFunction): void {
    const integration = new HttpLambdaIntegration('console-integration', fn, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    for (const path of ['/console', '/console/{proxy+}']) {
      for (const route of this.api.addRoutes({ path, methods: [HttpMethod.GET], integration })) {
        acknowledge(route, {
          id: 'AwsSolutions-APIG4',
          reason:
            'The console is static files (its page, script and stylesheet), public as any sign-in page is: they hold no data; every call the page makes carries the bearer token the services verify.',
        });
      }
    }
  }

  /** Routes `/api/<service>` and `/api/<service>/{proxy+}` (any method) to the service's function. */
  route(service: HttpService, fn: IFunction): void {
    const integration = new HttpLambdaIntegration(`${service}-integration`, fn, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    for (const path of [`/api/${service}`, `/api/${service}/{proxy+}`]) {
      for (const route of this.api.addRoutes({ path, methods: [HttpMethod.ANY], integration })) {
        acknowledge(route, {
          id: 'AwsSolutions-APIG4',
          reason:
            'Every service verifies the bearer token itself (lib/bearer: issuer, audience, expiry, signature, scope) before any handler runs; ' +
            "the auth service's token, discovery and JWKS routes must be public by OAuth 2.0, so a gateway authorizer cannot cover the /api/auth routes.",
        });
      }
    }
  }
}
