import { call } from '../api';
import { can, credentials } from '../session';

/** Tests per page of the list. */
export const PAGE = 20;

/** The account's preview-by-email address (made on first asking). */
export function fetchPreviewAddress<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'POST', '/v2/preview/address', { signal });
}

/** The clients tests can render in. */
export function fetchCatalog<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/preview/tests/clients', { signal });
}

/** A page of the account's tests (from 1). */
export function fetchTests<T>(page: number, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v2/preview/tests', { query: { results: PAGE, page }, signal });
}

/** What the Previews page asks for as it opens (the preview address only for those who may write). */
export function loadPreviews(): void {
  if (can('write')) void fetchPreviewAddress();
  void fetchCatalog();
  void fetchTests(1);
}
