import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Alarms, type AlarmSettings } from './constructs/alarms';
import { Api, type CustomDomainProps } from './constructs/api';
import { type AreaGrantee, type AreaResources, grantTableReadWrite } from './constructs/area-permissions';
import { Bootstrap } from './constructs/bootstrap';
import { ConsoleHosting } from './constructs/console';
import { Data, type ExistingTable } from './constructs/data';
import { EventStream } from './constructs/event-stream';
import { PeriodicJobs } from './constructs/periodic-jobs';
import { DEFAULT_MAX_MESSAGE_TTL } from './constructs/platform-env';
import { SCHEDULE_HORIZON, Scheduling } from './constructs/scheduling';
import { Sending, SendingWorkers } from './constructs/sending';
import { Smtp, type SmtpProps } from './constructs/smtp';
import { TrackingCertificates } from './constructs/tracking-certificates';
import { Lists } from './constructs/lists';
import { Inspection } from './constructs/inspection';
import { addBlocklistMonitoring } from './constructs/blocklist-monitoring';
import { addInboxPlacement } from './constructs/inbox-placement';
import type { BlocklistSettings, PlacementSettings, ReputationGuardSettings } from './constructs/platform-env';
import { ProductApi } from './constructs/product-api';
import { addIpJobs } from './constructs/ip-jobs';
import { addAlerts, grantRaiseAlerts } from './constructs/alerts';
import { Webhooks } from './constructs/webhooks';
import { Inbound, SES_RECEIVING_REGIONS } from './constructs/inbound';
import type { PlatformRegion } from './regions';

export interface PlatformStackProps extends StackProps {
  platformRegion: PlatformRegion;
  /** Parent domain of every account's sandbox domain. */
  sandboxDomain: string;
  customDomain?: CustomDomainProps;
  /**
   * How many send-worker invocations may run at once, which bounds the rate of SES calls (see
   * SendingWorkersProps.sendConcurrency for how to size it against the SES send rate). Default:
   * the `sendConcurrency` context value (`cdk deploy -c sendConcurrency=4`), else the send
   * worker row's bound (functions/workers.ts).
   */
  sendConcurrency?: number;
  /**
   * Upper bound of a domain's message_ttl (MAX_MESSAGE_TTL). The messages bucket keeps objects
   * at least this long. Default: the handlers' own default, 7 days.
   */
  maxMessageTtl?: Duration;
  /**
   * SMTP submission (an ECS Fargate service behind a Network Load Balancer, lib/constructs/smtp.ts):
   * off unless given, so a plain deploy stays serverless. From context: `-c smtp=true` with
   * smtpHost<Us|Eu>, smtpCertificateArn<Us|Eu> and smtpTlsSecretArn<Us|Eu> (lib/app-config.ts).
   */
  smtp?: Pick<SmtpProps, 'hostname' | 'certificateArn' | 'tlsSecretArn' | 'minTasks' | 'maxTasks'>;
  /**
   * Receiving mail (lib/constructs/inbound.ts): on where SES receives mail (SES_RECEIVING_REGIONS)
   * unless `-c inboundReceiving=false`; `true` forces it elsewhere. `-c inboundRuleSet=<name>` adds
   * the platform's receipt rule to that (already active) rule set instead of making one.
   * `-c previewInboxDomain=<domain>` turns on preview addresses on that domain (verified in SES,
   * its MX pointing at SES receiving): mail to them becomes preview tests.
   * `-c dmarcReportsDomain=<domain>` (verified in SES, MX at SES receiving) is where DMARC aggregate
   * reports are mailed (`rua=mailto:<token>@<domain>`) and ingested.
   * `-c seedInboxDomain=<domain>` (verified in SES, MX at SES receiving) is where seed lists'
   * target addresses are: a placement test's copy reaching one starts its result.
   */
  inbound?: { enabled?: boolean; existingRuleSetName?: string; previewInboxDomain?: string; dmarcReportsDomain?: string; seedInboxDomain?: string };
  /**
   * Previews from real mail clients beside the emulated ones: `-c previewRealClients=emailonacid
   * -c eoaCredentialsSecretArn=<arn>` (a secret holding JSON `apiKey` and `password`). Off unless given.
   */
  previewRealClients?: { service: 'emailonacid'; credentialsSecretArn: string };
  /**
   * Blocklist monitoring's lookups: `-c blocklistResolvers=<ip[:port],...>` (your own recursive
   * resolvers: Spamhaus and URIBL refuse AWS's shared one), `-c spamhausDqsKey=<key>`,
   * `-c blocklistCheckInterval=<seconds>`. Without resolvers every list reads `unknown`.
   */
  blocklists?: BlocklistSettings;
  /**
   * The operator's spam traps, `-c spamTrapList=pristine:trap@example.net,typo:gmial.com` (each send
   * to one counts as a hit of its kind in /v2/spamtraps); the typo and recycled heuristics run anyway.
   */
  spamTrapList?: string;
  /**
   * Inbox placement: `-c placementPollSeconds=<s>` and `-c placementDeadlineSeconds=<s>` (defaults
   * 180 and 3600); the content score from `-c spamdAddress=<host:port>` or `-c rspamdUrl=<url>`,
   * a scorer the operator runs where the Lambdas reach it. Without one, `spamassassin` is null.
   */
  placement?: PlacementSettings;
  /**
   * Google Postmaster data: `-c postmasterCredentialsSecretArn=<arn>`, a secret holding the JSON key
   * of the service account the daily fetch signs in as. Off unless given (the GPT routes then say so).
   */
  postmasterCredentialsSecretArn?: string;
  /**
   * The alarm topic and levels (lib/constructs/alarms.ts): from context `-c alarmEmail=<address>`,
   * `-c alarmTopicArn=<arn>` and the levels lib/app-config.ts reads. Absent, the stack makes a
   * topic with no subscriber and uses the default levels.
   */
  alarms?: AlarmSettings;
  /**
   * The reputation guard's levels (functions/reputation; REPUTATION_* in functions/platform/env.ts):
   * from context `-c reputationBounceWarningPercent=`, `reputationBouncePausePercent`,
   * `reputationComplaintWarningPercent`, `reputationComplaintPausePercent`, `reputationMinVolume`,
   * and `reputationWindowHours`. Absent, the documented defaults. It runs every 15 minutes.
   */
  reputationGuard?: ReputationGuardSettings;
  /**
   * Use this table instead of making one: a table restored from point-in-time recovery or a backup
   * (docs/operations.md, "Restore"). From context `-c tableName=<name> -c tableStreamArn=<arn>`
   * (per region: tableNameUs, tableStreamArnUs ...), read by lib/app-config.ts.
   */
  existingTable?: ExistingTable;
  /**
   * Items each capped account's monthly count is spread over (MONTHLY_LIMIT_SHARDS, 1 unless set):
   * about 1,000 capped sends a second per item (docs/capacity.md). From context `-c monthlyLimitShards=8`.
   */
  monthlyLimitShards?: number;
  /**
   * Partitions each domain's events of a day, and each account's of an hour, are spread over
   * (EVENT_SHARDS, 1 unless set): about 300-500 messages a second per domain per shard; reads
   * query every shard. Raise it freely; lowering it hides the dropped shards' events until they
   * expire (docs/capacity.md). From context `-c eventShards=4`.
   */
  eventShards?: number;
  /**
   * The HTTP APIs' throttle per route (requests a second, and the burst above it): 100 and 200
   * unless set. From context `-c apiRateLimit=1000 -c apiBurstLimit=2000` (docs/capacity.md).
   */
  apiThrottle?: { rateLimit: number; burstLimit: number };
}

/** The whole platform for one region (US or EU); regions share nothing. */
export class PlatformStack extends Stack {
  readonly data: Data;
  readonly sending: Sending;
  readonly scheduling: Scheduling;
  readonly api: Api;
  /** The environment every platform Lambda of the stack runs with (functions/platform/env.ts). */
  readonly platformEnvironment: Record<string, string>;
  readonly sendingWorkers: SendingWorkers;
  readonly bootstrap: Bootstrap;
  readonly eventStream: EventStream;
  readonly webhooks: Webhooks;
  readonly lists: Lists;
  readonly inspection: Inspection;
  /** Inspection's API areas and worker, in a nested stack (lib/constructs/product-api.ts). */
  readonly inspectionApi: ProductApi;
  /** Account administration's API areas (subaccounts), in a nested stack of their own. */
  readonly administrationApi: ProductApi;
  /** The optimization product's areas (functions/optimize), in their own nested stack. */
  readonly optimizationApi: ProductApi;
  /** The suppression lists' area and routes, nested only to keep the region's stack under 500 resources. */
  readonly suppressionsApi: ProductApi;
  /** The API reference (/openapi.json, /docs): nested, as the region's stack nears CloudFormation's 500 resources. */
  readonly referenceApi: ProductApi;
  readonly periodicJobs: PeriodicJobs;
  /** SMTP submission, when enabled. */
  readonly smtp?: Smtp;
  /** Every function, queue and state machine's alarms, the alarm topic and the dashboard (a nested stack). */
  readonly alarms: Alarms;
  readonly certificates: TrackingCertificates;
  /** SES receiving and routes' actions, where SES receives mail. */
  readonly inbound?: Inbound;
  /** The web console: S3 behind CloudFront, its origin the only one the API's CORS allows. */
  readonly console: ConsoleHosting;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    const maxMessageTtl = props.maxMessageTtl ?? DEFAULT_MAX_MESSAGE_TTL;

    // A scheduled message is kept for message_ttl from its delivery time, which is up to
    // SCHEDULE_HORIZON after its MIME is written: the bucket keeps objects that much longer.
    this.data = new Data(this, 'Data', { messageHorizon: maxMessageTtl.plus(SCHEDULE_HORIZON), existingTable: props.existingTable });
    this.sending = new Sending(this, 'Sending', { platformRegion: props.platformRegion });
    this.scheduling = new Scheduling(this, 'Scheduling', { sendQueue: this.sending.sendQueue.queue });
    this.webhooks = new Webhooks(this, 'Webhooks');
    this.lists = new Lists(this, 'Lists');
    this.inspection = new Inspection(this, 'Inspection', { accessLogs: this.data.accessLogs, realClientsSecretArn: this.realClientSettings(props)?.credentialsSecretArn });
    this.certificates = new TrackingCertificates(this, 'TrackingCertificates');
    const inbound = this.inboundSettings(props);
    if (inbound.enabled) this.inbound = new Inbound(this, 'Inbound', { accessLogs: this.data.accessLogs, existingRuleSetName: inbound.existingRuleSetName });
    const resources: AreaResources = {
      table: this.data.table,
      encryptionKey: this.data.encryptionKey,
      messagesBucket: this.data.messages,
      sendQueue: this.sending.sendQueue.queue,
      configurationSet: this.sending.configurationSet,
      requireTlsConfigurationSet: this.sending.requireTlsConfigurationSet,
      eventsTopic: this.sending.eventsTopic,
      scheduleStateMachine: this.scheduling.stateMachine,
      webhookQueue: this.webhooks.queue.queue,
      listQueue: this.lists.queue.queue,
      certificateStateMachine: this.certificates.stateMachine,
      inboundActionQueue: this.inbound?.actionQueue.queue,
      inspectBucket: this.inspection.bucket,
      inspectQueue: this.inspection.queue.queue,
      postmasterCredentialsSecretArn: this.postmasterSecretArn(props),
    };
    this.console = new ConsoleHosting(this, 'Console', { accessLogs: this.data.accessLogs });
    this.api = new Api(this, 'Api', {
      consoleOrigin: this.console.origin,
      platformRegion: props.platformRegion,
      sandboxDomain: props.sandboxDomain,
      resources,
      maxMessageTtl,
      customDomain: props.customDomain,
      previewInboxDomain: inbound.enabled ? inbound.previewInboxDomain : undefined,
      dmarcReportsDomain: inbound.enabled ? inbound.dmarcReportsDomain : undefined,
      seedInboxDomain: inbound.enabled ? inbound.seedInboxDomain : undefined,
      previewRealClients: this.realClientSettings(props),
      blocklists: this.blocklistSettings(props),
      spamTrapList: props.spamTrapList ?? this.contextText('spamTrapList'),
      placement: this.placementSettings(props),
      reputationGuard: props.reputationGuard ?? this.reputationGuardSettings(),
      monthlyLimitShards: props.monthlyLimitShards ?? this.contextNumber('monthlyLimitShards'),
      eventShards: props.eventShards ?? this.contextNumber('eventShards'),
      throttle: props.apiThrottle ?? this.contextThrottle(),
    });
    this.platformEnvironment = this.api.environment;
    // After the API: the workers share its environment, which names the send queue and bucket.
    this.sendingWorkers = new SendingWorkers(this, 'SendingWorkers', {
      sending: this.sending,
      resources,
      environment: this.platformEnvironment,
      sendConcurrency: props.sendConcurrency ?? this.contextSendConcurrency(),
    });
    this.scheduling.handleUndelivered(this.platformEnvironment, resources);
    this.certificates.addTasks(this.platformEnvironment, resources, this.api.trackingApi);
    this.eventStream = new EventStream(this, 'EventStream', { resources, environment: this.platformEnvironment });
    this.webhooks.addWorker(this.platformEnvironment, resources);
    this.lists.addWorkers(this.platformEnvironment, resources);
    this.inspectionApi = new ProductApi(this, 'InspectionApi', {
      product: 'Inspection',
      api: this.api,
      environment: this.platformEnvironment,
      resources,
      prepare: (stack) => this.inspection.addPreviewWorkflows(stack),
    });
    this.inspection.addWorkers(this.inspectionApi, this.platformEnvironment, resources);
    this.administrationApi = new ProductApi(this, 'AdministrationApi', {
      product: 'Administration',
      api: this.api,
      environment: this.platformEnvironment,
      resources,
      prepare: (stack) => addIpJobs(stack, this.platformEnvironment, resources),
    });
    this.suppressionsApi = new ProductApi(this, 'SuppressionsApi', { product: 'Suppressions', api: this.api, environment: this.platformEnvironment, resources });
    this.referenceApi = new ProductApi(this, 'ReferenceApi', { product: 'Reference', api: this.api, environment: this.platformEnvironment, resources });
    let placementIntake: { environment: Record<string, string>; grant: (grantee: AreaGrantee) => void } | undefined;
    this.optimizationApi = new ProductApi(this, 'OptimizationApi', {
      product: 'Optimization',
      api: this.api,
      environment: this.platformEnvironment,
      resources,
      // Alerts first: blocklist transitions raise them, so the check task needs their queue.
      prepare: (stack) => {
        const alerts = addAlerts(stack, this.platformEnvironment, resources);
        const blocklists = addBlocklistMonitoring(stack, { ...this.platformEnvironment, ...alerts.environment }, resources, (grantee) => grantRaiseAlerts(grantee, alerts.queue.queue));
        const placement = addInboxPlacement(stack, this.platformEnvironment, resources);
        placementIntake = placement.intake;
        // The product's periodic jobs (the blocklist sweep, the Postmaster fetch) live here too:
        // the region's stack is at CloudFormation's 500 resources with SMTP on.
        new PeriodicJobs(stack, 'PeriodicJobs', {
          resources,
          environment: { ...this.platformEnvironment, ...alerts.environment, ...blocklists.environment, ...placement.environment },
          product: 'Optimization',
          grants: {
            'blocklist-checks': blocklists.sweepGrant,
            // The reputation guard reads the counters, turns a subaccount's sending off and raises alerts.
            'reputation-guard': (grantee, { table }) => {
              grantTableReadWrite(grantee, table);
              grantRaiseAlerts(grantee, alerts.queue.queue);
            },
          },
        });
        return {
          environment: { ...alerts.environment, ...blocklists.environment, ...placement.environment },
          grant: (area, fn) => {
            alerts.grant(area, fn);
            blocklists.grant(area, fn);
            placement.grant(area, fn);
          },
        };
      },
    });
    // The receive worker hands mail on to previews (on their domain) and placement results (seed list targets).
    const intakes = [inbound.previewInboxDomain ? this.inspection.previewIntake() : undefined, inbound.seedInboxDomain ? placementIntake : undefined].filter((i) => i !== undefined);
    this.inbound?.addWorkers(
      this.platformEnvironment,
      resources,
      intakes.length ? { environment: Object.assign({}, ...intakes.map((i) => i.environment)) as Record<string, string>, grant: (grantee) => intakes.forEach((i) => i.grant(grantee)) } : undefined,
    );
    this.periodicJobs = new PeriodicJobs(this, 'PeriodicJobs', { resources, environment: this.platformEnvironment });
    this.bootstrap = new Bootstrap(this, 'Bootstrap', { table: this.data.table, environment: this.platformEnvironment });
    if (props.smtp) this.smtp = new Smtp(this, 'Smtp', { ...props.smtp, resources, environment: this.platformEnvironment });
    this.console.deploy(this.api.url, props.platformRegion, [`https://${this.inspection.bucket.bucketRegionalDomainName}`]);
    // Last: the alarms are made for every part found in the region, so everything must exist by now.
    this.alarms = new Alarms(this, 'Alarms', {
      platformRegion: props.platformRegion,
      settings: props.alarms,
      httpApis: { API: this.api.httpApi, 'Tracking API': this.api.trackingApi },
      table: this.data.table,
      sendQueue: this.sending.sendQueue.queue,
      streamConsumers: { 'EventStream/Worker': this.eventStream.worker.fn.functionName },
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL for Mailgun clients' });
    new CfnOutput(this, 'ConsoleUrl', { value: `${this.console.origin}/`, description: 'The web console (sign in with an API key)' });
    new CfnOutput(this, 'AdminKeySecretName', {
      value: this.bootstrap.adminKeySecret.secretName,
      description: 'Secrets Manager secret holding the first admin API key',
    });
  }

  private contextText(name: string): string | undefined {
    const value: unknown = this.node.tryGetContext(name);
    return typeof value === 'string' && value ? value : undefined;
  }

  private placementSettings(props: PlatformStackProps): PlacementSettings {
    const text = (name: string) => {
      const value: unknown = this.node.tryGetContext(name);
      return typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : undefined;
    };
    const seconds = (given: number | undefined, name: string) => given ?? (text(name) === undefined ? undefined : Number(text(name)));
    return {
      pollSeconds: seconds(props.placement?.pollSeconds, 'placementPollSeconds'),
      deadlineSeconds: seconds(props.placement?.deadlineSeconds, 'placementDeadlineSeconds'),
      spamdAddress: props.placement?.spamdAddress ?? text('spamdAddress'),
      rspamdUrl: props.placement?.rspamdUrl ?? text('rspamdUrl'),
    };
  }

  /** `-c apiRateLimit` and `-c apiBurstLimit` together, or neither. */
  private contextThrottle(): { rateLimit: number; burstLimit: number } | undefined {
    const rateLimit = this.contextNumber('apiRateLimit');
    const burstLimit = this.contextNumber('apiBurstLimit');
    if (rateLimit === undefined && burstLimit === undefined) return undefined;
    if (!rateLimit || !burstLimit || burstLimit < rateLimit) throw new Error('Context "apiRateLimit" and "apiBurstLimit" go together, both positive, the burst at least the rate');
    return { rateLimit, burstLimit };
  }

  /** A numeric context value (`-c name=3` arrives as a string, cdk.json may hold a number). */
  private contextNumber(name: string): number | undefined {
    const value: unknown = this.node.tryGetContext(name);
    if (value === undefined || value === null || value === '') return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new Error(`Context "${name}" must be a number; got ${JSON.stringify(value)}`);
    return parsed;
  }

  private reputationGuardSettings(): ReputationGuardSettings {
    const number = (name: string) => this.contextNumber(name);
    return {
      windowHours: number('reputationWindowHours'),
      minVolume: number('reputationMinVolume'),
      bounceWarningPercent: number('reputationBounceWarningPercent'),
      bouncePausePercent: number('reputationBouncePausePercent'),
      complaintWarningPercent: number('reputationComplaintWarningPercent'),
      complaintPausePercent: number('reputationComplaintPausePercent'),
    };
  }

  private blocklistSettings(props: PlatformStackProps): BlocklistSettings {
    const text = (name: string) => this.contextText(name);
    const interval = props.blocklists?.checkIntervalSeconds ?? text('blocklistCheckInterval');
    return {
      resolvers: props.blocklists?.resolvers ?? text('blocklistResolvers'),
      spamhausDqsKey: props.blocklists?.spamhausDqsKey ?? text('spamhausDqsKey'),
      checkIntervalSeconds: interval === undefined ? undefined : Number(interval),
    };
  }

  private realClientSettings(props: PlatformStackProps): PlatformStackProps['previewRealClients'] {
    if (props.previewRealClients) return props.previewRealClients;
    const service: unknown = this.node.tryGetContext('previewRealClients');
    const secret: unknown = this.node.tryGetContext('eoaCredentialsSecretArn');
    if (service === undefined || service === null || service === '') return undefined;
    if (service !== 'emailonacid') throw new Error(`-c previewRealClients=${String(service)}: the real-client tier knows emailonacid only`);
    if (typeof secret !== 'string' || !secret.startsWith('arn:')) throw new Error('-c previewRealClients=emailonacid needs -c eoaCredentialsSecretArn=<the secret\'s ARN>');
    return { service, credentialsSecretArn: secret };
  }

  private postmasterSecretArn(props: PlatformStackProps): string | undefined {
    if (props.postmasterCredentialsSecretArn) return props.postmasterCredentialsSecretArn;
    const secret: unknown = this.node.tryGetContext('postmasterCredentialsSecretArn');
    if (secret === undefined || secret === null || secret === '') return undefined;
    if (typeof secret !== 'string' || !secret.startsWith('arn:')) throw new Error('-c postmasterCredentialsSecretArn needs the ARN of the secret holding the service account key');
    return secret;
  }

  private inboundSettings(props: PlatformStackProps): { enabled: boolean; existingRuleSetName?: string; previewInboxDomain?: string; dmarcReportsDomain?: string; seedInboxDomain?: string } {
    const flag: unknown = this.node.tryGetContext('inboundReceiving');
    const forced = flag === undefined || flag === null || flag === '' ? undefined : flag === true || flag === 'true';
    const ruleSet: unknown = this.node.tryGetContext('inboundRuleSet');
    const previewDomain: unknown = this.node.tryGetContext('previewInboxDomain');
    const dmarcDomain: unknown = this.node.tryGetContext('dmarcReportsDomain');
    const seedDomain: unknown = this.node.tryGetContext('seedInboxDomain');
    return {
      enabled: props.inbound?.enabled ?? forced ?? SES_RECEIVING_REGIONS.includes(this.region),
      existingRuleSetName: props.inbound?.existingRuleSetName ?? (typeof ruleSet === 'string' && ruleSet ? ruleSet : undefined),
      previewInboxDomain: props.inbound?.previewInboxDomain ?? (typeof previewDomain === 'string' && previewDomain ? previewDomain : undefined),
      dmarcReportsDomain: props.inbound?.dmarcReportsDomain ?? (typeof dmarcDomain === 'string' && dmarcDomain ? dmarcDomain : undefined),
      seedInboxDomain: props.inbound?.seedInboxDomain ?? (typeof seedDomain === 'string' && seedDomain ? seedDomain : undefined),
    };
  }

  /** `-c sendConcurrency=N` arrives as a string, cdk.json may hold a number. */
  private contextSendConcurrency(): number | undefined {
    const raw: unknown = this.node.tryGetContext('sendConcurrency');
    if (raw === undefined || raw === null || raw === '') return undefined;
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (Number.isNaN(value)) throw new Error(`Context "sendConcurrency" must be a whole number; got ${JSON.stringify(raw)}`);
    return value;
  }
}
