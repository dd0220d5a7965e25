#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { platformStackConfigs } from '../lib/app-config';
import { PlatformStack } from '../lib/platform-stack';

const app = new App();
for (const { id, props } of platformStackConfigs((key) => app.node.tryGetContext(key))) {
  new PlatformStack(app, id, props);
}
// cdk-nag 3 is a policy-validation plugin, not an Aspect: a finding that is not acknowledged on
// its resource fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
