import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag's AwsSolutions pack as a CDK validation plugin: `cdk synth` fails on any finding not acknowledged.
 * (cdk-nag 3 uses CDK's native `Validations` API: `acknowledge` replaces v2's `NagSuppressions`.)
 */
export function applyNagChecks(app: IConstruct): void {
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }),
  );
}

/** One acknowledged finding: the rule (with its finding, for IAM5), where, and why it is acceptable. */
export interface Acknowledgement {
  id: string;
  reason: string;
}

/**
 * Acknowledges findings on the one construct they concern (never on the stack), so a new resource with the same
 * problem is still reported. test/infra/nag.test.ts lists every acknowledged id: growing the list fails it.
 */
export function acknowledge(scope: IConstruct, ...acknowledgements: Acknowledgement[]): void {
  for (const { id, reason } of acknowledgements) {
    if (reason.trim().length < 20) throw new Error(`acknowledgement of ${id} needs a real reason`);
    Validations.of(scope).acknowledge({ id, reason });
  }
}
