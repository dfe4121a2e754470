import { join } from 'node:path';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LAMBDA_ENTRY_NAME } from '../bundling.js';
import type { AfterBundling } from './bundled-files.js';
import type { StageConfig } from './config.js';
import { functionCode, LAMBDA_RUNTIME } from './function-code.js';
import { acknowledge } from './nag.js';
import { retentionDays } from './retention.js';

/** The Lambdas: one file each in `functions/`. */
export type FunctionName =
  | 'auth'
  | 'ledger'
  | 'ledger-writer'
  | 'payments'
  | 'platform'
  | 'webhooks'
  | 'dispatch'
  | 'deliver'
  | 'rotate-keys'
  | 'console'
  | 'pipelines'
  | 'payments-connectors'
  | 'ledger-holds'
  | 'ledger-reply-sweep';

export interface FunctionSpec {
  name: FunctionName;
  description: string;
  timeout: Duration;
  memorySize: number;
  /** The function's variables (CDK's `environment`), beside STAGE and LOG_LEVEL. */
  variables: Record<string, string>;
  /** Shell commands that add files beside the bundle, run after esbuild (bundled-files.ts). */
  afterBundling?: AfterBundling | undefined;
}

const projectRoot = join(import.meta.dirname, '..', '..');

/**
 * One Lambda: arm64, the bundles' Node.js runtime, bundled by local esbuild with the settings of
 * `infra/bundling.ts`, its own log group (retention from the stage) and its own role. The role starts with
 * nothing but writing to that log group (no AWS managed policy): every other permission is granted by the
 * stack, resource by resource.
 */
export class PlatformFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, spec: FunctionSpec, config: StageConfig, physicalPrefix: string) {
    super(scope, spec.name);
    const functionName = `${physicalPrefix}${spec.name}`;
    this.logGroup = new LogGroup(this, 'logs', {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: retentionDays(config.logRetentionDays),
      // Prod logs outlive a stack deletion (they may be evidence); dev logs go with the stack.
      removalPolicy: config.stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${functionName}: least-privilege role of the ${spec.name} function`,
    });
    this.logGroup.grantWrite(this.role);
    this.fn = new LambdaFunction(this, 'function', {
      functionName,
      description: spec.description,
      code: functionCode({
        projectRoot,
        entry: join(projectRoot, 'functions', `${spec.name}.ts`),
        sourcemap: config.sourcemap,
        afterBundling: spec.afterBundling,
      }),
      handler: `${LAMBDA_ENTRY_NAME}.handler`,
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: spec.memorySize,
      timeout: spec.timeout,
      role: this.role,
      logGroup: this.logGroup,
      ...(config.tracing ? { tracing: Tracing.ACTIVE } : {}),
      environment: {
        STAGE: config.stage,
        LOG_LEVEL: 'info',
        ...(config.sourcemap ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        ...spec.variables,
      },
    });
    if (config.tracing)
      acknowledge(this.role, {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Active tracing: Lambda adds xray:PutTraceSegments and xray:PutTelemetryRecords, which X-Ray grants on no resource narrower than "*" ' +
          '(they name no resource); the role gets nothing else on "*".',
      });
    acknowledge(this.fn, {
      id: 'AwsSolutions-L1',
      reason:
        "The runtime follows the bundles' esbuild target (LAMBDA_NODE_TARGET in infra/bundling.ts, node22), which the code is built and tested for; " +
        'moving to a newer Node.js is a deliberate change of target and runtime together, not a side effect of a CDK upgrade.',
    });
  }
}
