import { NestedStack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type { Construct } from 'constructs';
import { areas, routes } from '../../functions/routes';
import { type Api, areaFunction, NESTED_AREA_PREFIXES } from './api';
import type { AreaResources } from './area-permissions';
import type { PlatformFunction } from './platform-function';

export interface ProductApiProps {
  /** A key of NESTED_AREA_PREFIXES: whose areas this stack holds. */
  product: string;
  api: Api;
  environment: Record<string, string>;
  resources: AreaResources;
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
    const functions = new Map<string, PlatformFunction>();
    for (const area of areas.filter((a) => a.startsWith(prefix))) {
      const { fn, integration } = areaFunction(this, area, props.environment, props.resources);
      functions.set(area, fn);
      for (const route of routes.filter((r) => r.area === area)) {
        if (route.access === 'public') throw new Error(`${route.method} ${route.path}: public routes belong to the region's stack`);
        new apigw.HttpRoute(this, `${route.method}${route.path}`, {
          httpApi: props.api.httpApi,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
          integration,
          authorizer: props.api.authorizer,
        });
      }
    }
    this.areaFunctions = functions;
  }
}
