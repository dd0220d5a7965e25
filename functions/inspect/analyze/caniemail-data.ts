/**
 * caniemail's data set (www.caniemail.com, npm `caniemail`), the one source of client support in
 * inspection: code analysis and the image format check. Only its JSON is read, parsed on first use.
 */

export type SupportLevel = 'y' | 'a' | 'n' | 'u';

interface RawFeature {
  slug: string;
  title: string;
  description: string | null;
  category: 'html' | 'css' | 'image' | 'others';
  notes_by_num: Record<string, string> | null;
  stats: Record<string, Record<string, Record<string, string>>>;
}

interface RawData {
  api_version: string;
  last_update_date: string;
  nicenames: { family: Record<string, string>; platform: Record<string, string>; support: Record<string, string>; category: Record<string, string> };
  data: RawFeature[];
}

/** One client (family + platform + version) a feature was tested in. */
export interface VariantSupport {
  /** `family.platform.version`, e.g. `gmail.desktop-webmail.2022-02`. */
  id: string;
  family: string;
  platform: string;
  version: string;
  level: SupportLevel;
  /** Note numbers (`"a #1 #3"` gives 1 and 3), looked up in the feature's notes_by_num. */
  notes: string[];
  /** Whether this is the latest tested version of its family and platform: the current state. */
  latest: boolean;
}

export interface CaniemailFeature {
  slug: string;
  name: string;
  description: string | null;
  category: 'html' | 'css' | 'image' | 'others';
  notes: Record<string, string>;
  support: VariantSupport[];
}

/** Which application kind a platform is (contract §4, proposed): mobile apps, desktop apps, webmail. */
export const APPLICATION_TYPE: Readonly<Record<string, 'web' | 'mobile' | 'desktop'>> = {
  ios: 'mobile',
  android: 'mobile',
  windows: 'desktop',
  macos: 'desktop',
  'windows-mail': 'desktop',
  'desktop-app': 'desktop',
  'desktop-webmail': 'web',
  'mobile-webmail': 'web',
  webmail: 'web',
  'outlook-com': 'web',
};

let raw: RawData | undefined;
let features: Map<string, CaniemailFeature> | undefined;

function data(): RawData {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  raw ??= require('caniemail/caniemail.json') as RawData;
  return raw;
}

/** Versions are dates (`2022-02`) or numbers (`16.80`, `2019`): compared part by part, numerically. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff) return Number.isNaN(diff) ? a.localeCompare(b) : diff;
  }
  return 0;
}

function parseCell(cell: string): { level: SupportLevel; notes: string[] } {
  const [letter, ...refs] = cell.trim().split(/\s+/);
  const level = (['y', 'a', 'n', 'u'].includes(letter ?? '') ? letter : 'u') as SupportLevel;
  return { level, notes: refs.filter((r) => r.startsWith('#')).map((r) => r.slice(1)) };
}

function build(feature: RawFeature): CaniemailFeature {
  const support: VariantSupport[] = [];
  for (const [family, platforms] of Object.entries(feature.stats ?? {})) {
    for (const [platform, versions] of Object.entries(platforms)) {
      const ordered = Object.keys(versions).sort(compareVersions);
      for (const version of ordered) {
        support.push({ id: `${family}.${platform}.${version}`, family, platform, version, ...parseCell(versions[version]!), latest: version === ordered.at(-1) });
      }
    }
  }
  return { slug: feature.slug, name: feature.title, description: feature.description || null, category: feature.category, notes: feature.notes_by_num ?? {}, support };
}

/** Every feature by slug. */
export function caniemailFeatures(): ReadonlyMap<string, CaniemailFeature> {
  features ??= new Map(data().data.map((feature) => [feature.slug, build(feature)]));
  return features;
}

export function familyName(family: string): string {
  return data().nicenames.family[family] ?? family;
}

export function platformName(platform: string): string {
  return data().nicenames.platform[platform] ?? platform;
}

/** GET /v1/inspect/analyze/dictionary (contract §4): lookups named from caniemail's own nicenames. */
export function dictionary() {
  const variants: Record<string, { client: string; platform: string; version: string; application_type: string }> = {};
  for (const feature of caniemailFeatures().values()) {
    for (const v of feature.support) variants[v.id] ??= { client: v.family, platform: v.platform, version: v.version, application_type: APPLICATION_TYPE[v.platform] ?? 'web' };
  }
  return {
    lookups: {
      clients: data().nicenames.family,
      platforms: data().nicenames.platform,
      application_type: { web: 'Web', mobile: 'Mobile', desktop: 'Desktop' },
      support_levels: { y: 'Supported', a: 'Partially supported', n: 'Not supported', u: 'Support unknown' },
      categories: { html: 'HTML', css: 'CSS', image: 'Image formats', others: 'Others' },
      variants,
    },
  };
}
