import { NestedStack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type { Construct } from 'constructs';
import { areas } from '../../functions/routes';
import { API_ROUTES, type Api, areaFunction, NESTED_AREA_PREFIXES, PUBLIC_ROUTE_REASONS } from './api';
import type { AreaResources } from './area-permissions';
import type { PlatformFunction } from './platform-function';

export interface ProductApiProps {
  /** A key of NESTED_AREA_PREFIXES: whose areas this stack holds. */
  product: string;
  api: Api;
  environment: Record<string, string>;
  resources: AreaResources;
  /**
   * Called first, inside the nested stack: what the product builds there before its areas (its
   * workflows, say), the environment its areas get on top of the platform's, and grants per area.
   */
  prepare?: (stack: NestedStack) => { environment?: Record<string, string>; grant?: (area: string, fn: PlatformFunction) => void };
}

/**
 * A product's API areas (inspection's links, images, accessibility, analyze) in a nested stack of
 * the region's: their Lambdas with the same grants and environment as every area, and their rows
 * of the route table as routes on the region's HTTP API, behind its authorizer. Nested, because a
 * CloudFormation stack holds at most 500 resources and the region's stack was reaching that; the
 * API, its authorizer, the table and the buckets stay in the region's stack and come in as
 * parameters, so nothing there depends on a product stack.
 */
export class ProductApi extends NestedStack {
  readonly areaFunctions: ReadonlyMap<string, PlatformFunction>;

  constructor(scope: Construct, id: string, props: ProductApiProps) {
    super(scope, id, { description: `Mailplane ${props.product}: API areas and routes` });
    const prefix = NESTED_AREA_PREFIXES[props.product];
    if (!prefix) throw new Error(`Unknown product ${props.product}: add it to NESTED_AREA_PREFIXES`);
    const prepared = props.prepare?.(this) ?? {};
    const environment = { ...props.environment, ...prepared.environment };
    const functions = new Map<string, PlatformFunction>();
    for (const area of areas.filter((a) => a.startsWith(prefix))) {
      const { fn, integration } = areaFunction(this, area, environment, props.resources);
      prepared.grant?.(area, fn);
      functions.set(area, fn);
      for (const route of API_ROUTES.filter((r) => r.area === area)) {
        const isPublic = route.isPublic;
        const added = new apigw.HttpRoute(this, `${route.method}${route.path}`, {
          httpApi: props.api.httpApi,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
          integration,
          authorizer: props.api.authorizerFor(route),
        });
        if (isPublic) {
          Validations.of(added).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: PUBLIC_ROUTE_REASONS[area] ?? 'A public page of a product (a preview share, a sandbox recipient\'s confirmation), opened by whoever was given its link: the unguessable id or token in the path is the credential, and the handler answers 404 for one that is unknown, disabled, expired or rotated.',
          });
        }
      }
    }
    this.areaFunctions = functions;
  }
}
