import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { stageConfigFromContext } from '../../infra/stacks/config.js';
import { PlatformStack } from '../../infra/stacks/platform-stack.js';

/**
 * The platform stack as `infra/app.ts` builds it, from the given context. Bundling is skipped
 * (`aws:cdk:bundling-stacks` empty: each function's code is then a placeholder asset) so a synth takes a
 * second, not a minute; the bundle settings are tested on their own (bundling-options.test.ts) and
 * `npx cdk synth` bundles for real.
 */
export function synthPlatform(
  context: Record<string, unknown> = {},
  extend?: (stack: PlatformStack) => void,
): { stack: PlatformStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const config = stageConfigFromContext(app.node);
  const stack = new PlatformStack(app, `platform-${config.stage}`, { config });
  extend?.(stack);
  return { stack, template: Template.fromStack(stack) };
}
