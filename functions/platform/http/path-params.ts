import { byteLength, MAX_DOMAIN_NAME_BYTES, MAX_KEY_PART_BYTES } from '../../data/key-limits';
import { BadRequest, NotFound } from '../errors';
import type { RouteSpec } from './route';

/**
 * Percent-decodes a path segment as API Gateway passes it. A segment that is not valid
 * percent-encoding (`%zz`, a lone `%`, cut-off UTF-8) is kept as sent: it names nothing, and the
 * route answers that as it answers any unknown name.
 */
export function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Path values become key parts in every area, so their length is checked here once, before any
 * store call: a domain longer than a domain name can be is not found (as any unknown domain), any
 * other value too long to be a key part is refused. Tokens are exempt: the routes that take them
 * verify or decode them, and never use them as keys.
 */
export function checkPathParams(route: RouteSpec, path: Record<string, string>): void {
  for (const [name, value] of Object.entries(path)) {
    if (name === route.domainParam) {
      if (byteLength(value) > MAX_DOMAIN_NAME_BYTES) throw new NotFound('Domain not found');
    } else if (name !== 'token' && byteLength(value) > MAX_KEY_PART_BYTES) {
      throw new BadRequest(`Invalid parameter '${name}': too long (at most ${MAX_KEY_PART_BYTES} bytes)`);
    }
  }
}
