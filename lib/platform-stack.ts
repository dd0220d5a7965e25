import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Api, type CustomDomainProps } from './constructs/api';
import { Bootstrap } from './constructs/bootstrap';
import { Data } from './constructs/data';
import type { PlatformRegion } from './constructs/platform-env';

export interface PlatformStackProps extends StackProps {
  platformRegion: PlatformRegion;
  /** Parent domain of every account's sandbox domain. */
  sandboxDomain: string;
  customDomain?: CustomDomainProps;
}

/** The whole platform for one region (US or EU); regions share nothing. */
export class PlatformStack extends Stack {
  readonly data: Data;
  readonly api: Api;
  readonly bootstrap: Bootstrap;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);

    this.data = new Data(this, 'Data');
    this.api = new Api(this, 'Api', {
      platformRegion: props.platformRegion,
      sandboxDomain: props.sandboxDomain,
      table: this.data.table,
      encryptionKey: this.data.encryptionKey,
      customDomain: props.customDomain,
    });
    this.bootstrap = new Bootstrap(this, 'Bootstrap', { table: this.data.table, environment: this.api.environment });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL for Mailgun clients' });
    new CfnOutput(this, 'AdminKeySecretName', {
      value: this.bootstrap.adminKeySecret.secretName,
      description: 'Secrets Manager secret holding the first admin API key',
    });
  }
}
