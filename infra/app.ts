import { App } from 'aws-cdk-lib';
import { PlatformStack } from './stacks/platform-stack.js';

const app = new App();
const stage = app.node.tryGetContext('stage') ?? 'dev';
if (stage !== 'dev' && stage !== 'prod') throw new Error(`context "stage" must be dev or prod (got "${stage}")`);
new PlatformStack(app, `platform-${stage}`, { stage });
app.synth();
