import { caniemailFeatures, type SupportLevel } from '../../analyze/caniemail-data';

/** One feature's support in one client: the latest tested version's level and its notes' text. */
export interface ClientSupport {
  level: SupportLevel;
  notes: string[];
  /** caniemail's name for the feature ("display:flex"), for the transforms a result lists. */
  name: string;
}

const byClient = new Map<string, ReadonlyMap<string, ClientSupport>>();

/**
 * What caniemail says a client (`family.platform`) supports today, by feature slug: the latest
 * tested version of that family and platform decides, as code analysis reads it.
 */
export function supportIn(familyPlatform: string): ReadonlyMap<string, ClientSupport> {
  let table = byClient.get(familyPlatform);
  if (!table) {
    const built = new Map<string, ClientSupport>();
    const [family, platform] = familyPlatform.split('.');
    for (const feature of caniemailFeatures().values()) {
      const latest = feature.support.find((v) => v.latest && v.family === family && v.platform === platform);
      if (latest) built.set(feature.slug, { level: latest.level, notes: latest.notes.map((n) => feature.notes[n] ?? '').filter(Boolean), name: feature.name });
    }
    table = built;
    byClient.set(familyPlatform, table);
  }
  return table;
}

/** Every slug caniemail has, for the CSS detector (it only reports slugs the data set knows). */
export function knownSlugs(): ReadonlySet<string> {
  return new Set(caniemailFeatures().keys());
}
