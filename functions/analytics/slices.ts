import { normaliseTag } from '../tags/tag-store';
import type { RecordedEvent } from '../events/event-store';

/**
 * What a counter counts: events of an account, optionally narrowed to values of some attributes.
 * A slice kind is a set of attributes, always in this order; a counter item holds the counts of one
 * kind, one combination of values, one time bucket.
 *
 * - domain: the sending domain
 * - tag: each of the message's tags (an event with two tags counts once under each)
 * - rdomain: the recipient's domain (legacy "providers" key it, recipient_provider maps it)
 * - device: client-info device-type of opens, clicks and unsubscribes
 * - country: geolocation country of opens, clicks and unsubscribes
 */
export type Attribute = 'domain' | 'tag' | 'rdomain' | 'device' | 'country';

const DIMENSION_ATTRIBUTES = ['rdomain', 'device', 'country'] as const;

/**
 * The kinds kept: the account, each of domain / tag / domain+tag, and each of those with one of the
 * recipient-domain, device and country dimensions. Two dimensions together (say device by country)
 * are not kept: a query asking for them is refused rather than answered from events.
 */
export const KINDS: ReadonlyArray<readonly Attribute[]> = (() => {
  const bases: Attribute[][] = [[], ['domain'], ['tag'], ['domain', 'tag']];
  return [...bases, ...DIMENSION_ATTRIBUTES.flatMap((d) => bases.map((b) => [...b, d]))];
})();

export const kindName = (kind: readonly Attribute[]) => (kind.length ? kind.join('+') : 'total');

/** The smallest kept kind that has all these attributes (extra ones are summed over when read). */
export function smallestKindWith(attributes: Iterable<Attribute>): readonly Attribute[] | undefined {
  const wanted = [...new Set(attributes)];
  return KINDS.filter((kind) => wanted.every((a) => kind.includes(a))).sort((a, b) => a.length - b.length)[0];
}

/** The values an event has for each attribute: several tags, or none when it has no such value. */
export function eventValues(e: RecordedEvent): Record<Attribute, string[]> {
  const data = e.data;
  // Counted under the registry's identity of a tag (functions/tags): case-folded ASCII, as Mailgun.
  const tags = Array.isArray(data['tags'])
    ? [...new Set(data['tags'].flatMap((t) => (typeof t === 'string' ? (normaliseTag(t)?.tagKey ?? []) : [])))]
    : [];
  const recipient = typeof data['recipient'] === 'string' ? data['recipient'] : '';
  const rdomain = (typeof data['recipient-domain'] === 'string' ? data['recipient-domain'] : recipient.split('@')[1] ?? '').toLowerCase();
  const client = data['client-info'] as { 'device-type'?: unknown } | undefined;
  const geo = data['geolocation'] as { country?: unknown } | undefined;
  const one = (v: unknown) => (typeof v === 'string' && v !== '' ? [v] : []);
  return {
    domain: [e.domain.toLowerCase()],
    tag: tags,
    rdomain: one(rdomain),
    device: one(client?.['device-type']),
    country: one(geo?.country),
  };
}

/** Every way to pick one value from each set, in order (none when a set is empty). */
export function cartesian(sets: readonly string[][]): string[][] {
  return sets.reduce<string[][]>((acc, set) => acc.flatMap((prefix) => set.map((v) => [...prefix, v])), [[]]);
}

/** Every combination of values of `kind` the event has (none when it lacks one of the attributes). */
export function combinations(kind: readonly Attribute[], values: Record<Attribute, string[]>): string[][] {
  return cartesian(kind.map((attribute) => values[attribute]));
}

/*
 * Sort key of a counter: its values, each percent-encoded (so `#` inside a tag cannot be taken for
 * the separator) and joined with `#`, in the kind's attribute order. The account total has `-`.
 */
export function valuesKey(values: readonly string[]): string {
  return values.length ? values.map(encodeURIComponent).join('#') : '-';
}

export function valuesOfKey(sk: string): string[] {
  return sk === '-' ? [] : sk.split('#').map(decodeURIComponent);
}
