/** A feature's value as the dashboard sends it: `{"enabled":true}` (a JSON string in a form field, or JSON), or a bare boolean. */
function featureValue(raw: unknown): { enabled: boolean } | undefined {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value === 'boolean') return { enabled: value };
  if (value && typeof value === 'object' && typeof (value as { enabled?: unknown }).enabled === 'boolean') return { enabled: (value as { enabled: boolean }).enabled };
  return undefined;
}

/** The features a request sets among `names`, read from its form fields or its JSON body; others are ignored. */
export function featureChanges<N extends string>(request: { params: Record<string, unknown>; json?: unknown }, names: readonly N[]): Partial<Record<N, { enabled: boolean }>> {
  const source = { ...request.params, ...(request.json && typeof request.json === 'object' ? (request.json as Record<string, unknown>) : {}) };
  const changes: Partial<Record<N, { enabled: boolean }>> = {};
  for (const name of names) {
    const value = source[name] === undefined ? undefined : featureValue(source[name]);
    if (value) changes[name] = value;
  }
  return changes;
}
