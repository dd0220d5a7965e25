import { call } from '../api';
import { credentials } from '../session';

export const PAGE_SIZE = 50;

/** A page of the routes, from `skip` on. */
export function fetchRoutes<T>(skip: number, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v3/routes', { query: { skip, limit: PAGE_SIZE }, signal });
}

/** What the Routes page asks for as it opens. */
export function loadRoutes(): void {
  void fetchRoutes(0);
}
