import { App } from 'aws-cdk-lib';
import { stageConfigFromContext } from './stacks/config.js';
import { applyNagChecks } from './stacks/nag.js';
import { PlatformStack } from './stacks/platform-stack.js';

// `npx cdk synth -c stage=prod`: everything stage-specific comes from context (see infra/stacks/config.ts and
// docs/operations.md). No env (account/region) on the stack: synth needs no credentials and does no lookups.
const app = new App();
const config = stageConfigFromContext(app.node);
new PlatformStack(app, `platform-${config.stage}`, { config });
applyNagChecks(app);
app.synth();
