/** Tags RFC 9989 (DMARCbis) removed: a proposed record leaves them out (`t=y` replaces pct for testing). */
const REMOVED_TAGS = new Set(['pct', 'ri', 'rf']);

/**
 * The `_dmarc` record to publish: the live one with its policy and other tags kept, our `rua`
 * added to its list (once), the removed tags dropped; with none live, a monitoring record
 * (`p=none`) with our `rua`. `configured` says whether the live record already names our address.
 */
export function proposedRecord(current: string, rua: string | undefined): { entry: string; configured: boolean } {
  const tags = current
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const eq = part.indexOf('=');
      return eq > 0 ? ([part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()] as const) : ([part.toLowerCase(), ''] as const);
    });
  const ruaOf = (list: string) => list.split(',').map((uri) => uri.trim()).filter(Boolean);
  const existing = ruaOf(tags.find(([name]) => name === 'rua')?.[1] ?? '');
  const configured = Boolean(rua) && existing.some((uri) => uri.toLowerCase() === rua!.toLowerCase());
  if (!current) return { entry: `v=DMARC1; p=none${rua ? `; rua=${rua}` : ''}`, configured: false };
  const kept = tags.filter(([name]) => !REMOVED_TAGS.has(name) && name !== 'rua');
  const ruaList = rua && !configured ? [...existing, rua] : existing;
  const withRua = ruaList.length ? [...kept, ['rua', ruaList.join(',')] as const] : kept;
  return { entry: withRua.map(([name, value]) => (name === 'v' ? `v=${value}` : `${name}=${value}`)).join('; '), configured };
}
