import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELDS } from '../../infra/stacks/api.js';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

const { template } = synthPlatform({ stage: 'dev' });
const dev = templateReader(template);
const prod = templateReader(synthPlatform({ stage: 'prod' }).template);

describe('HTTP API', () => {
  it("routes /api/<service> and /api/<service>/{proxy+}, any method, payload 2.0, to that service's function only", () => {
    const routes = Object.values(dev.resources).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Route',
    );
    const integrations = Object.fromEntries(
      Object.entries(dev.resources)
        .filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Integration')
        .map(([id, r]) => [id, r.Properties]),
    );
    const table = routes
      .map((r) => {
        expect(r.Properties.AuthorizationType).toBe('NONE');
        expect(r.Properties.Target['Fn::Join'][1][0]).toBe('integrations/');
        const integration = integrations[r.Properties.Target['Fn::Join'][1][1].Ref];
        expect(integration).toMatchObject({
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
        });
        return `${r.Properties.RouteKey} -> ${integration!.IntegrationUri['Fn::GetAtt'][0]}`;
      })
      .sort();
    const expected = ['auth', 'ledger', 'webhooks', 'payments', 'platform']
      .flatMap((s) => [
        `ANY /api/${s} -> ${dev.fnId(`platform-dev-${s}`)}`,
        `ANY /api/${s}/{proxy+} -> ${dev.fnId(`platform-dev-${s}`)}`,
      ])
      // The public service list (the reference gateway's), answered by the auth function.
      .concat([`GET /versions -> ${dev.fnId('platform-dev-auth')}`])
      // The API reference and the merged OpenAPI document, public, answered by the auth function too.
      .concat(
        ['/docs', '/docs/{proxy+}', '/openapi.json'].map(
          (p) => `GET ${p} -> ${dev.fnId('platform-dev-auth')}`,
        ),
      )
      // The console's page and assets, public, answered by the console function only.
      .concat(
        ['/console', '/console/{proxy+}'].map(
          (p) => `GET ${p} -> ${dev.fnId('platform-dev-console')}`,
        ),
      )
      .sort();
    expect(table).toEqual(expected);
  });

  it('lets API Gateway invoke each service function only through its own routes', () => {
    const permissions = Object.values(dev.resources)
      .filter((r) => r.Type === 'AWS::Lambda::Permission')
      .map((r) => r.Properties);
    const gateway = permissions.filter((p) => p.Principal === 'apigateway.amazonaws.com');
    expect(gateway).toHaveLength(16);
    // Besides: EventBridge may invoke the payments connectors' worker, the hold sweeper, the reply queues' sweeper
    // and rotate-keys (their schedules), nothing else.
    expect(
      permissions
        .filter((p) => p.Principal !== 'apigateway.amazonaws.com')
        .map((p) => [p.Principal, p.FunctionName['Fn::GetAtt'][0]]),
    ).toEqual([
      ['events.amazonaws.com', dev.fnId('platform-dev-payments-connectors')],
      ['events.amazonaws.com', dev.fnId('platform-dev-ledger-holds')],
      ['events.amazonaws.com', dev.fnId('platform-dev-ledger-reply-sweep')],
      ['events.amazonaws.com', dev.fnId('platform-dev-rotate-keys')],
    ]);
    for (const p of gateway) {
      expect(p.Action).toBe('lambda:InvokeFunction');
      expect(JSON.stringify(p.SourceArn)).toMatch(
        /\/\*\/\*\/(api\/(auth|ledger|webhooks|payments|platform)(\/\{proxy\+\})?|versions|(docs|console)(\/\{proxy\+\})?|openapi\.json)"/,
      );
    }
    // The console function through its two routes, and nothing else through them.
    const consoleFn = dev.fnId('platform-dev-console');
    expect(
      gateway
        .filter((p) => JSON.stringify(p.SourceArn).includes('/console'))
        .map((p) => [
          p.FunctionName['Fn::GetAtt'][0],
          JSON.stringify(p.SourceArn).match(/\/console[^"]*/)![0],
        ])
        .sort(),
    ).toEqual([
      [consoleFn, '/console'],
      [consoleFn, '/console/{proxy+}'],
    ]);
    expect(gateway.filter((p) => p.FunctionName['Fn::GetAtt'][0] === consoleFn).length).toBe(2);
  });

  it('has one auto-deployed $default stage with JSON access logs and default throttling (dev)', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: {
        DestinationArn: {
          'Fn::GetAtt': [dev.logGroupId('/aws/apigateway/platform-dev-api/access'), 'Arn'],
        },
        Format: JSON.stringify(ACCESS_LOG_FIELDS),
      },
    });
    expect(JSON.parse(JSON.stringify(ACCESS_LOG_FIELDS))).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
    expect(
      dev.resources[dev.logGroupId('/aws/apigateway/platform-dev-api/access')]!.Properties
        .RetentionInDays,
    ).toBe(30);
  });

  it('throttles prod at its own default and keeps its access logs a year', () => {
    const stage = Object.values(prod.resources).find(
      (r) => r.Type === 'AWS::ApiGatewayV2::Stage',
    )!.Properties;
    expect(stage.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: 500,
      ThrottlingBurstLimit: 1000,
    });
    const logs = prod.resources[prod.logGroupId('/aws/apigateway/platform-prod-api/access')]!;
    expect([logs.Properties.RetentionInDays, logs.DeletionPolicy]).toEqual([365, 'Retain']);
  });

  it('outputs the base URL and the issuer', () => {
    const endpoint = {
      'Fn::GetAtt': [dev.logicalId('AWS::ApiGatewayV2::Api', () => true), 'ApiEndpoint'],
    };
    template.hasOutput('ApiUrl', { Value: endpoint });
    template.hasOutput('Issuer', { Value: { 'Fn::Join': ['', [endpoint, '/api/auth']] } });
    template.hasOutput('AlarmTopicArn', { Value: Match.anyValue() });
  });
});
