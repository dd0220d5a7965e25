import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTHORIZER_CACHE_SECONDS } from '../../functions/authorizer/cache';
import { gatewayRoutes, type GatewayRoute } from '../../functions/platform/http/gateway-routes';
import { areas, routes } from '../../functions/routes';
import { handlerEntry } from '../paths';
import type { PlatformRegion } from '../regions';
import { type AreaResources, grantArea, grantAuthFailureCounts, grantKeyLookup } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { platformEnvironment, type BlocklistSettings, type PlacementSettings, type ReputationGuardSettings } from './platform-env';

/**
 * Areas that need more than the default 512 MB: image uploads and optimisation decode images with
 * sharp in the request (a 10 MB JPEG is far larger decoded), and Lambda's CPU share grows with memory.
 */
export const AREA_MEMORY_MB: Readonly<Record<string, number>> = { 'inspect/images': 1536 };

/**
 * Areas whose Lambdas, integrations and routes live in a product's nested stack (lib/constructs/
 * product-api.ts) rather than in the region's stack: CloudFormation allows 500 resources a stack,
 * and each area brings five (function, role, policies, log group) plus its routes. Suppressions
 * (24 routes of its own) is there for that reason alone: with SMTP on, the region's stack was at 495.
 */
export const NESTED_AREA_PREFIXES: Readonly<Record<string, string>> = { Inspection: 'inspect/', Administration: 'admin/', Optimization: 'optimize/', Suppressions: 'suppressions', Reference: 'openapi' };

/**
 * The region HTTP API's routes: a row each, or an area's greedy route for several rows once the
 * table outgrows API Gateway's route quota (functions/platform/http/gateway-routes.ts). Planned
 * over the whole table, since a prefix can go greedy only when no other area has rows under it.
 */
export const API_ROUTES = gatewayRoutes(routes);

/** Why an area's public routes need no API key, where the area says so itself (a nested product's default otherwise). */
export const PUBLIC_ROUTE_REASONS: Readonly<Record<string, string>> = {
  tracking: 'A tracking link fetched by mail clients, which send no credentials; the handler accepts only tokens signed with the platform key (HMAC) and answers 404 otherwise.',
  openapi: 'The API reference (the OpenAPI document and the page rendering it): documentation built into its Lambda, holding nothing of any account, and public as the SDKs\' own documentation is.',
};

/** The nested product an area belongs to, if any. */
export const productOfArea = (area: string): string | undefined => Object.keys(NESTED_AREA_PREFIXES).find((product) => area.startsWith(NESTED_AREA_PREFIXES[product]!));

/** One API area's Lambda, with its grants and its integration, in `scope` (this stack or a product's). */
export function areaFunction(scope: Construct, area: string, environment: Record<string, string>, resources: AreaResources): { fn: PlatformFunction; integration: HttpLambdaIntegration } {
  const fn = new PlatformFunction(scope, `Area-${area}`, {
    entry: handlerEntry(area),
    description: `API area: ${area}`,
    environment,
    memorySize: AREA_MEMORY_MB[area],
  });
  grantArea(area, fn.grantee, resources);
  const integration = new HttpLambdaIntegration(`${area}-integration`, fn.fn, {
    payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    // One invoke permission per function and API, not per route: a Lambda resource policy
    // is capped at 20 KB, which a large area's routes would outgrow.
    scopePermissionToRoute: false,
  });
  return { fn, integration };
}

export interface CustomDomainProps {
  domainName: string;
  /** An ACM certificate for domainName, in the stack's region. */
  certificateArn: string;
}

export interface ApiProps {
  platformRegion: PlatformRegion;
  sandboxDomain: string;
  /** What the areas are granted access to (lib/constructs/area-permissions.ts), and name in their environment. */
  resources: AreaResources;
  /** Upper bound of a domain's message_ttl (MAX_MESSAGE_TTL); default the handlers' own. */
  maxMessageTtl?: Duration;
  customDomain?: CustomDomainProps;
  /** The domain of preview addresses (PREVIEW_INBOX_DOMAIN); absent, previews by email are off. */
  previewInboxDomain?: string;
  /** Where DMARC reports are mailed (the rua addresses' domain), when inbound receiving is on. */
  dmarcReportsDomain?: string;
  /** The domain of seed list targets (SEED_INBOX_DOMAIN); absent, seed lists cannot be made. */
  seedInboxDomain?: string;
  /** How blocklist monitoring looks lists up. */
  blocklists?: BlocklistSettings;
  /** The reputation guard's levels (REPUTATION_*); absent, the handlers' defaults. */
  reputationGuard?: ReputationGuardSettings;
  /** MONTHLY_LIMIT_SHARDS; absent, the handlers' default (one item). */
  monthlyLimitShards?: number;
  /** EVENT_SHARDS; absent, the handlers' default (one partition per domain-day and account-hour). */
  eventShards?: number;
  /** The operator's spam traps (SPAM_TRAP_LIST). */
  spamTrapList?: string;
  /** Inbox placement's poll cadence and content scorer. */
  placement?: PlacementSettings;
  /** The real-client preview tier (Email on Acid) and its credentials' secret; absent, previews are emulated only. */
  previewRealClients?: { service: 'emailonacid'; credentialsSecretArn: string };
  /** Stage-wide request rate (per second) and burst; API Gateway answers 429 beyond them. */
  throttle?: { rateLimit: number; burstLimit: number };
  /** The web console's origin (lib/constructs/console.ts): the one origin the API's CORS allows. */
  consoleOrigin?: string;
}

/**
 * The HTTP API of one region: every row of functions/routes.ts becomes a route on its area's
 * Lambda, behind the Basic-auth Lambda authorizer, on the `$default` stage (no stage prefix in URLs).
 * The areas of nested products (NESTED_AREA_PREFIXES) are added by their ProductApi stacks.
 */
export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  /**
   * What tracking hosts serve over HTTPS: the public tracking routes (links in mail) and nothing
   * else, on the tracking area's Lambda. Each tracking certificate's custom domain name maps here
   * (functions/certificates/custom-domain.ts), so a customer's tracking host never exposes the API.
   */
  readonly trackingApi: apigw.HttpApi;
  /** The base URL clients use: the custom domain when there is one. */
  readonly url: string;
  /** The host name customers' tracking CNAMEs point at. */
  readonly trackingHost: string;
  /** The environment every platform Lambda of this region gets. */
  readonly environment: Record<string, string>;
  readonly authorizerFunction: PlatformFunction;
  /** The Basic-auth authorizers (cached, and for routes that change credentials uncached). */
  private readonly authorizers: { cached: HttpLambdaAuthorizer; uncached: HttpLambdaAuthorizer };
  readonly areaFunctions: ReadonlyMap<string, PlatformFunction>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      apiName: `${stack.stackName}-api`,
      description: 'Mailgun-compatible email API',
      createDefaultStage: true,
      // Browsers may call the API from the console's origin and no other; SDKs send no Origin.
      ...(props.consoleOrigin
        ? {
            corsPreflight: {
              allowOrigins: [props.consoleOrigin],
              allowMethods: [apigw.CorsHttpMethod.GET, apigw.CorsHttpMethod.POST, apigw.CorsHttpMethod.PUT, apigw.CorsHttpMethod.DELETE, apigw.CorsHttpMethod.PATCH],
              allowHeaders: ['authorization', 'content-type', 'accept', 'x-mailgun-on-behalf-of', 'x-service-account-id', 'x-service-requestor', 'x-service-requestor-client'],
              maxAge: Duration.minutes(10),
            },
          }
        : {}),
    });
    this.configureDefaultStage(this.httpApi, 'AccessLogs', props.throttle ?? { rateLimit: 100, burstLimit: 200 });
    this.trackingApi = new apigw.HttpApi(this, 'TrackingApi', {
      apiName: `${stack.stackName}-tracking`,
      description: 'Tracking links (open, click, unsubscribe) on customers\' tracking hosts over HTTPS',
      createDefaultStage: true,
    });
    this.configureDefaultStage(this.trackingApi, 'TrackingAccessLogs', props.throttle ?? { rateLimit: 100, burstLimit: 200 });

    this.trackingHost = props.customDomain?.domainName ?? `${this.httpApi.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.url = props.customDomain ? `https://${props.customDomain.domainName}` : this.httpApi.apiEndpoint;
    if (props.customDomain) this.mapCustomDomain(props.customDomain);

    const { resources } = props;
    this.environment = platformEnvironment({
      platformRegion: props.platformRegion,
      tableName: resources.table.tableName,
      encryptionKeySecretId: resources.encryptionKey.secretArn,
      sandboxDomain: props.sandboxDomain,
      trackingCnameTarget: this.trackingHost,
      publicApiUrl: this.url,
      messagesBucket: resources.messagesBucket.bucketName,
      sendQueueUrl: resources.sendQueue.queueUrl,
      sesConfigurationSet: resources.configurationSet.configurationSetName,
      sesTlsConfigurationSet: resources.requireTlsConfigurationSet.configurationSetName,
      sesEventsTopicArn: resources.eventsTopic.topicArn,
      scheduleStateMachineArn: resources.scheduleStateMachine.stateMachineArn,
      certificateStateMachineArn: resources.certificateStateMachine.stateMachineArn,
      maxMessageTtl: props.maxMessageTtl,
      webhookQueueUrl: resources.webhookQueue.queueUrl,
      listQueueUrl: resources.listQueue.queueUrl,
      inboundActionQueueUrl: resources.inboundActionQueue?.queueUrl,
      inspectBucket: resources.inspectBucket.bucketName,
      inspectQueueUrl: resources.inspectQueue.queueUrl,
      previewInboxDomain: props.previewInboxDomain,
      dmarcReportsDomain: props.dmarcReportsDomain,
      seedInboxDomain: props.seedInboxDomain,
      previewRealClients: props.previewRealClients,
      blocklists: props.blocklists,
      spamTrapList: props.spamTrapList,
      placement: props.placement,
      reputationGuard: props.reputationGuard,
      monthlyLimitShards: props.monthlyLimitShards,
      eventShards: props.eventShards,
      postmasterCredentialsSecretArn: resources.postmasterCredentialsSecretArn,
    });

    this.authorizerFunction = new PlatformFunction(this, 'Authorizer', {
      entry: handlerEntry('authorizer'),
      description: 'HTTP API authorizer: resolves the Basic-auth API key',
      environment: this.environment,
    });
    grantKeyLookup(this.authorizerFunction.grantee, resources.table);
    grantAuthFailureCounts(this.authorizerFunction.grantee, resources.table);
    // The source address is part of the cache key: a verdict depends on it once an IP allowlist exists.
    const identitySource = ['$request.header.Authorization', '$context.identity.sourceIp'];
    this.authorizers = {
      cached: new HttpLambdaAuthorizer('BasicAuth', this.authorizerFunction.fn, {
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        identitySource,
        resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_SECONDS),
      }),
      uncached: new HttpLambdaAuthorizer('BasicAuthUncached', this.authorizerFunction.fn, {
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        identitySource,
        resultsCacheTtl: Duration.seconds(0),
      }),
    };

    const areaFunctions = new Map<string, PlatformFunction>();
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const area of areas.filter((a) => !productOfArea(a))) {
      const { fn, integration } = areaFunction(this, area, this.environment, resources);
      areaFunctions.set(area, fn);
      integrations.set(area, integration);
    }
    this.areaFunctions = areaFunctions;

    const acknowledgePublic = (added: apigw.HttpRoute[], area = 'tracking') => {
      for (const publicRoute of added) {
        Validations.of(publicRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: PUBLIC_ROUTE_REASONS[area]! });
      }
    };
    for (const route of API_ROUTES.filter((r) => !productOfArea(r.area))) {
      const isPublic = route.isPublic;
      const added = this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: integrations.get(route.area)!,
        // Mail clients follow tracking links without credentials; the handler checks the link's signature.
        authorizer: this.authorizerFor(route),
      });
      if (isPublic) acknowledgePublic(added, route.area);
    }

    // The tracking API: the same tracking routes on the same Lambda, and nothing else.
    const tracking = areaFunctions.get('tracking')!;
    const trackingIntegration = new HttpLambdaIntegration('tracking-host-integration', tracking.fn, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      scopePermissionToRoute: false,
    });
    for (const route of routes.filter((r) => r.area === 'tracking')) {
      acknowledgePublic(this.trackingApi.addRoutes({ path: route.path, methods: [apigw.HttpMethod[route.method]], integration: trackingIntegration, authorizer: new apigw.HttpNoneAuthorizer() }));
    }
  }

  /** What authorizes a route: nothing for a public page, else the Basic-auth authorizer its rows need. */
  authorizerFor(route: Pick<GatewayRoute, 'isPublic' | 'uncachedAuth'>): apigw.IHttpRouteAuthorizer {
    if (route.isPublic) return new apigw.HttpNoneAuthorizer();
    return route.uncachedAuth ? this.authorizers.uncached : this.authorizers.cached;
  }

  private configureDefaultStage(api: apigw.HttpApi, logsId: string, throttle: { rateLimit: number; burstLimit: number }): void {
    const accessLogs = new logs.LogGroup(this, logsId, { retention: logs.RetentionDays.THREE_MONTHS });
    // HttpApi offers no access-log or throttling options for its default stage: set them on the L1.
    const stage = api.defaultStage!.node.defaultChild as apigw.CfnStage;
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      // Never headers or bodies: the Authorization header carries the API key.
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        requestTime: '$context.requestTime',
        method: '$context.httpMethod',
        routeKey: '$context.routeKey',
        path: '$context.path',
        status: '$context.status',
        protocol: '$context.protocol',
        responseLength: '$context.responseLength',
        latency: '$context.responseLatency',
        integrationError: '$context.integrationErrorMessage',
        authorizerError: '$context.authorizer.error',
      }),
    };
    stage.defaultRouteSettings = { throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit };
  }

  private mapCustomDomain({ domainName, certificateArn }: CustomDomainProps): void {
    const domain = new apigw.DomainName(this, 'DomainName', {
      domainName,
      certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', certificateArn),
    });
    new apigw.ApiMapping(this, 'ApiMapping', { api: this.httpApi, domainName: domain, stage: this.httpApi.defaultStage });
  }
}

