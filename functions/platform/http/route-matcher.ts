import { servesMethod, type RouteSpec } from './route';

interface CompiledRoute {
  route: RouteSpec;
  segments: string[];
  /** Static segments outrank variables, which outrank greedy variables, position by position. */
  rank: number[];
}

export interface RouteMatch {
  route: RouteSpec;
  /** Raw (still percent-encoded) path parameters, as API Gateway passes them. */
  pathParameters: Record<string, string>;
}

const isVariable = (segment: string) => segment.startsWith('{') && segment.endsWith('}');
const isGreedy = (segment: string) => segment.endsWith('+}');

/**
 * Routes requests the way API Gateway HTTP APIs do: most specific route first, unknown paths
 * unmatched, HEAD only where a row answers it (on AWS that row has a HEAD route of its own).
 */
export class RouteMatcher {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly RouteSpec[]) {
    this.compiled = routes
      .map((route) => {
        const segments = route.path.split('/').filter(Boolean);
        return { route, segments, rank: segments.map((s) => (isGreedy(s) ? 0 : isVariable(s) ? 1 : 2)) };
      })
      .sort((a, b) => {
        for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
          const diff = (b.rank[i] ?? -1) - (a.rank[i] ?? -1);
          if (diff) return diff;
        }
        return 0;
      });
  }

  match(method: string, rawPath: string): RouteMatch | undefined {
    const parts = rawPath.split('/').filter(Boolean);
    for (const { route, segments } of this.compiled) {
      if (!servesMethod(route, method)) continue;
      const params = this.bind(segments, parts);
      if (params) return { route, pathParameters: params };
    }
    return undefined;
  }

  private bind(segments: string[], parts: string[]): Record<string, string> | undefined {
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (isGreedy(segment)) {
        if (i >= parts.length) return undefined;
        params[segment.slice(1, -2)] = parts.slice(i).join('/');
        return params;
      }
      const part = parts[i];
      if (part === undefined) return undefined;
      if (isVariable(segment)) params[segment.slice(1, -1)] = part;
      else if (segment !== part) return undefined;
    }
    return segments.length === parts.length ? params : undefined;
  }
}
