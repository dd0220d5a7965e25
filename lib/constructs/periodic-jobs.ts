import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { periodicJobs, type PeriodicJob } from '../../functions/schedules';
import { REPO_ROOT } from '../paths';
import { grantDedicatedIpManagement, grantPostmasterFetch, grantSendingIdentities, type AreaGrant, type AreaResources } from './area-permissions';
import { PlatformFunction } from './platform-function';

export interface PeriodicJobsProps {
  resources: AreaResources;
  environment: Record<string, string>;
  /** The product whose jobs these are (functions/schedules.ts `product`); absent, the region stack's own. */
  product?: PeriodicJob['product'];
  /** Grants that name the product's own resources (its workflows), made where they exist. */
  grants?: Partial<Record<PeriodicJob['grant'], AreaGrant>>;
}

const GRANTS: Partial<Record<PeriodicJob['grant'], AreaGrant>> = {
  'sending-identities': grantSendingIdentities,
  'dedicated-ips': grantDedicatedIpManagement,
  'postmaster-credentials': grantPostmasterFetch,
};

/**
 * functions/schedules.ts on AWS: one Lambda per job, invoked by an EventBridge rule at its rate.
 * A rule rather than a Scheduler schedule per domain: the jobs sweep what is due from the table,
 * so there is nothing to create or delete per domain, and a missed run is made up by the next.
 */
export class PeriodicJobs extends Construct {
  readonly functions = new Map<string, PlatformFunction>();

  constructor(scope: Construct, id: string, props: PeriodicJobsProps) {
    super(scope, id);
    for (const job of periodicJobs.filter((j) => j.product === props.product)) {
      const grant = props.grants?.[job.grant] ?? GRANTS[job.grant];
      if (!grant) throw new Error(`Periodic job ${job.name}: no grant for '${job.grant}' in this stack`);
      const fn = new PlatformFunction(this, job.name, {
        entry: path.join(REPO_ROOT, 'functions', `${job.entry}.ts`),
        description: job.description,
        environment: props.environment,
        timeout: Duration.minutes(5),
      });
      grant(fn.grantee, props.resources);
      new events.Rule(this, `${job.name}-rule`, {
        schedule: events.Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [new targets.LambdaFunction(fn.fn, { retryAttempts: 2 })],
      });
      this.functions.set(job.name, fn);
    }
  }
}
