import { APPLICATION_TYPE, caniemailFeatures, type CaniemailFeature, type SupportLevel, type VariantSupport } from './caniemail-data';
import type { DetectedFeature } from './feature-detector';
import { MARKET_SHARE } from './market-share';

/** A feature as a version stores it: the instances, and which of them the user marked resolved. */
export interface StoredFeature {
  slug: string;
  instances: Array<{ id: string; line: number; column: number; resolved: boolean }>;
}

/** FNV-1a, 32 bits: a short, stable tag for a slug (not a security boundary, only an id part). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/**
 * An instance id: the feature and the place, so the same feature at the same place has the same id
 * in every version (a resolved mark can be carried), and ids are cheap for thousands of instances.
 */
const instanceId = (slugTag: string, line: number, column: number) => `${slugTag}-${line}-${column}`;

export function buildFeatures(detected: DetectedFeature[]): StoredFeature[] {
  return detected.map((feature) => {
    const tag = fnv1a(feature.slug);
    return { slug: feature.slug, instances: feature.instances.map(({ line, column }) => ({ id: instanceId(tag, line, column), line, column, resolved: false })) };
  });
}

/** A new version keeps the `resolved` marks of instances still at the same place (same feature, line, column). */
export function carryResolved(previous: StoredFeature[], next: StoredFeature[]): StoredFeature[] {
  const resolved = new Set(previous.flatMap((f) => f.instances.filter((i) => i.resolved).map((i) => `${f.slug}:${i.line}:${i.column}`)));
  return next.map((f) => ({ ...f, instances: f.instances.map((i) => ({ ...i, resolved: resolved.has(`${f.slug}:${i.line}:${i.column}`) })) }));
}

/** Marks an instance of the version resolved or not; false when no instance has that id. */
export function resolveInstance(features: StoredFeature[], id: string, resolved: boolean): boolean {
  for (const feature of features) {
    const instance = feature.instances.find((i) => i.id === id);
    if (instance) {
      instance.resolved = resolved;
      return true;
    }
  }
  return false;
}

export interface CodeFilters {
  slug?: string;
  support_type?: SupportLevel;
  application_type?: 'web' | 'mobile' | 'desktop';
  group_by?: 'notes';
}

interface Buckets {
  supported: number;
  partial_support: number;
  unsupported: number;
  unknown: number;
}

const emptyBuckets = (): Buckets => ({ supported: 0, partial_support: 0, unsupported: 0, unknown: 0 });

/** How a group of clients supports a feature: the latest version of each, as contract §4 proposes. */
function verdict(levels: SupportLevel[]): keyof Buckets | undefined {
  if (!levels.length) return undefined;
  if (levels.every((l) => l === 'y')) return 'supported';
  if (levels.every((l) => l === 'n')) return 'unsupported';
  if (levels.every((l) => l === 'u')) return 'unknown';
  return 'partial_support';
}

/**
 * The market's verdict: clients weighted by their share (market-share.ts). Supported or not when
 * the clients that do (or do not) hold at least 95% of the weight; otherwise partial.
 */
function marketVerdict(latest: VariantSupport[]): keyof Buckets | undefined {
  let total = 0;
  const weight: Record<SupportLevel, number> = { y: 0, a: 0, n: 0, u: 0 };
  const families = new Map<string, VariantSupport[]>();
  for (const v of latest) families.set(v.family, [...(families.get(v.family) ?? []), v]);
  for (const [family, variants] of families) {
    const share = MARKET_SHARE[family] ?? 0;
    if (!share) continue;
    // A family's share spreads over its platforms equally: no per-platform figures are claimed.
    for (const v of variants) {
      weight[v.level] += share / variants.length;
      total += share / variants.length;
    }
  }
  if (!total) return undefined;
  if (weight.u / total >= 0.95) return 'unknown';
  if (weight.y / total >= 0.95) return 'supported';
  if (weight.n / total >= 0.95) return 'unsupported';
  return 'partial_support';
}

function variantRef(feature: CaniemailFeature, v: VariantSupport) {
  return { id: v.id, notes: v.notes.map((n) => feature.notes[n] ?? `#${n}`) };
}

function supportOf(feature: CaniemailFeature, filters: CodeFilters) {
  const variants = feature.support.filter((v) => (!filters.application_type || APPLICATION_TYPE[v.platform] === filters.application_type) && (!filters.support_type || v.level === filters.support_type));
  const levels: SupportLevel[] = ['y', 'a', 'n', 'u'];
  if (filters.group_by === 'notes') {
    return Object.fromEntries(
      levels.map((level) => {
        const groups = new Map<string, ReturnType<typeof variantRef>[]>();
        for (const v of variants.filter((x) => x.level === level)) {
          const ref = variantRef(feature, v);
          const key = ref.notes.join(' ') || '';
          groups.set(key, [...(groups.get(key) ?? []), ref]);
        }
        return [level, [...groups].map(([note, refs]) => ({ note, variants: refs }))];
      }),
    );
  }
  return Object.fromEntries(levels.map((level) => [level, variants.filter((v) => v.level === level).map((v) => variantRef(feature, v))]));
}

/**
 * A version's results as contract §4's CodeResult: each feature found with its instances and its
 * support per client variant (filtered as asked), and in `meta` how many features each application
 * type, each client family and the market as a whole support fully, partly, not at all or unknown.
 */
export function presentCodeResult(version: { id: string; version: number; status: 'Processing' | 'Completed' | 'Failed'; features: StoredFeature[] }, filters: CodeFilters) {
  const data = caniemailFeatures();
  const wanted = filters.slug ? new Set(filters.slug.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
  const stored = version.features.filter((f) => data.has(f.slug) && (!wanted || wanted.has(f.slug)));
  const application: Record<'desktop' | 'mobile' | 'web', Buckets> = { desktop: emptyBuckets(), mobile: emptyBuckets(), web: emptyBuckets() };
  const providers: Record<string, Buckets> = {};
  const market = emptyBuckets();
  const features = stored.map((f) => {
    const feature = data.get(f.slug)!;
    const latest = feature.support.filter((v) => v.latest);
    for (const type of ['desktop', 'mobile', 'web'] as const) {
      const bucket = verdict(latest.filter((v) => APPLICATION_TYPE[v.platform] === type).map((v) => v.level));
      if (bucket) application[type][bucket]++;
    }
    for (const family of new Set(latest.map((v) => v.family))) {
      const bucket = verdict(latest.filter((v) => v.family === family).map((v) => v.level));
      if (bucket) (providers[family] ??= emptyBuckets())[bucket]++;
    }
    const overall = marketVerdict(latest);
    if (overall) market[overall]++;
    return {
      slug: feature.slug,
      name: feature.name,
      description: feature.description,
      category: feature.category,
      notes_lookup: feature.notes,
      instances: f.instances,
      support: supportOf(feature, filters),
    };
  });
  return {
    meta: {
      status: version.status,
      version: version.version,
      count: features.length,
      application_support: application,
      inbox_provider_support: providers,
      market_support: market,
      ...(filters.group_by ? { grouped_by: filters.group_by } : {}),
    },
    items: { id: version.id, version: version.version, features: version.status === 'Processing' ? [] : features },
  };
}
