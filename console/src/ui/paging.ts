/**
 * The query of the page a paging URL points at (Mailgun's pivot paging: `page` and the pivot
 * field, `address` for lists and suppressions), so the next page is asked for by its parameters.
 */
export function pivotOf(url: string | undefined, key = 'address'): Record<string, string> | undefined {
  if (!url) return undefined;
  const params = new URL(url).searchParams;
  return { page: params.get('page') ?? '', [key]: params.get(key) ?? '' };
}
