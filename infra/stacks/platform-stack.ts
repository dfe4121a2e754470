import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { createTables } from './tables.js';

export interface PlatformStackProps extends StackProps {
  stage: 'dev' | 'prod';
}

/**
 * The platform in AWS. So far: its tables, from the definitions the local platform shares. The HTTP API,
 * Lambdas, queues and alarms arrive with the infrastructure issue.
 */
export class PlatformStack extends Stack {
  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    createTables(this, `${id}-`);
  }
}
