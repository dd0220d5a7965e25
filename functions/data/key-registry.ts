import type { IndexKey, Key } from './store';

/**
 * The registry of the single table's key shapes. Each entity declares, next to its store, the keys
 * it builds (a builder and the shape of what it builds) and the queries it runs; `defineEntity`
 * records them here and hands the builders back. data/ knows no entity: the stores register
 * themselves, and functions/entities.ts imports every one of them (for the tests and the generated
 * access-pattern table, docs/access-patterns.md).
 *
 * A shape is a template: fixed text and `<name>` placeholders. `<name>` stands for a non-empty
 * value without `#` (account ids, domain names, ids, days); `<name*>` for any non-empty value
 * (addresses, tags, Message-IDs: they may hold a `#`). The collision test proves from these
 * templates that no two item kinds can have the same key, and that no query can return an item
 * kind it does not read.
 */
export interface ItemShape<F extends KeyBuilder = KeyBuilder> {
  /** What the item is, in a few words: the access-pattern table's wording. */
  what: string;
  pk?: string;
  sk?: string;
  /** Its gsi1 key, when the item is on that index too (or only an index key is built). */
  gsi1pk?: string;
  gsi1sk?: string;
  /** The builder; shapes without one are built by code beside the store (time-bucketed keys). */
  key?: F;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KeyBuilder = (...args: any[]) => Key | IndexKey | (Key & IndexKey);

export interface QueryShape {
  /** The access pattern, in a few words. */
  what: string;
  index?: 'gsi1';
  /** The partition, as a template. */
  pk: string;
  /** The sort key's prefix (begins_with, BETWEEN within it, or the whole partition when absent). */
  skPrefix?: string;
  /** The item kinds (of this entity) the query reads; by default all of the entity's kinds in that partition. */
  reads?: string[];
}

export interface RegisteredItem extends Omit<ItemShape, 'key'> {
  entity: string;
  name: string;
  key?: KeyBuilder;
}

export interface RegisteredQuery extends QueryShape {
  entity: string;
}

const items: RegisteredItem[] = [];
const queries: RegisteredQuery[] = [];
const entities = new Set<string>();

type Builders<D> = { [N in keyof D as D[N] extends { key: KeyBuilder } ? N : never]: D[N] extends { key: infer F } ? F : never };

/**
 * Registers an entity's item kinds and queries; returns its key builders by item name. Registering
 * a name twice is refused, so two stores cannot both claim an entity.
 */
export function defineEntity<D extends Record<string, ItemShape>>(entity: string, shapes: D, entityQueries: QueryShape[] = []): Builders<D> {
  if (entities.has(entity)) throw new Error(`entity ${entity} is defined twice`);
  entities.add(entity);
  const builders: Record<string, KeyBuilder> = {};
  for (const [name, shape] of Object.entries(shapes)) {
    items.push({ ...shape, entity, name });
    if (shape.key) builders[name] = shape.key;
  }
  for (const query of entityQueries) queries.push({ ...query, entity });
  return builders as Builders<D>;
}

export const registeredItems = (): readonly RegisteredItem[] => items;
export const registeredQueries = (): readonly RegisteredQuery[] => queries;

/* ------------------------------------------------------------------------------------------------
 * Templates as tiny regular languages: literal characters, `<x>` = [^#]+ and `<x*>` = .+, so that
 * whether two templates can produce the same string (or one a prefix of the other) is decidable.
 */

type Cls = { lit: string } | { seg: true } | { any: true };
interface Elem {
  cls: Cls;
  star: boolean;
}

const PLACEHOLDER = /<([a-zA-Z0-9 _-]+)(\*?)>/g;

function compile(template: string, openEnded = false): Elem[] {
  const out: Elem[] = [];
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    for (const ch of template.slice(at, match.index)) out.push({ cls: { lit: ch }, star: false });
    const cls: Cls = match[2] ? { any: true } : { seg: true };
    out.push({ cls, star: false }, { cls, star: true });
    at = match.index + match[0].length;
  }
  for (const ch of template.slice(at)) out.push({ cls: { lit: ch }, star: false });
  if (openEnded) out.push({ cls: { any: true }, star: true });
  return out;
}

function meet(a: Cls, b: Cls): boolean {
  if ('lit' in a && 'lit' in b) return a.lit === b.lit;
  if ('lit' in a) return 'any' in b || a.lit !== '#';
  if ('lit' in b) return meet(b, a);
  return true;
}

/** Whether some string is produced by both (product of the two automata, searched breadth first). */
function intersects(a: Elem[], b: Elem[]): boolean {
  const seen = new Set<string>();
  const stack: [number, number][] = [[0, 0]];
  while (stack.length) {
    const [i, j] = stack.pop()!;
    const id = `${i},${j}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (i === a.length && j === b.length) return true;
    // Skipping a starred element consumes nothing.
    if (i < a.length && a[i].star) stack.push([i + 1, j]);
    if (j < b.length && b[j].star) stack.push([i, j + 1]);
    if (i < a.length && j < b.length && meet(a[i].cls, b[j].cls)) stack.push([a[i].star ? i : i + 1, b[j].star ? j : j + 1]);
  }
  return false;
}

/** Whether the two templates can produce the same string. */
export const templatesOverlap = (a: string, b: string) => intersects(compile(a), compile(b));

/** Whether a value of template `a` can start with a value of `prefix` (a query's begins_with). */
export const templateCanStartWith = (a: string, prefix: string) => intersects(compile(a), compile(prefix, true));

/** Whether a concrete key part fits a template. */
export function fitsTemplate(value: string, template: string): boolean {
  const pattern = template.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/<[a-zA-Z0-9 _-]+(\*?)>/g, (_, star: string) => (star ? '.+' : '[^#]+'));
  return new RegExp(`^${pattern}$`).test(value);
}

export interface KeySpace {
  pk: string;
  sk: string;
}

/** The keys an item kind has in the base table and in gsi1. */
function spacesOf(item: Pick<ItemShape, 'pk' | 'sk' | 'gsi1pk' | 'gsi1sk'>): { base?: KeySpace; gsi1?: KeySpace } {
  return {
    ...(item.pk !== undefined ? { base: { pk: item.pk, sk: item.sk ?? '' } } : {}),
    ...(item.gsi1pk !== undefined ? { gsi1: { pk: item.gsi1pk, sk: item.gsi1sk ?? '' } } : {}),
  };
}

/** Pairs of item kinds that could be given the same key (in the table or in gsi1). */
export function keyCollisions(all: readonly RegisteredItem[] = items): string[] {
  const found: string[] = [];
  for (let x = 0; x < all.length; x++) {
    for (let y = x + 1; y < all.length; y++) {
      const a = spacesOf(all[x]);
      const b = spacesOf(all[y]);
      for (const space of ['base', 'gsi1'] as const) {
        const ka = a[space];
        const kb = b[space];
        if (ka && kb && templatesOverlap(ka.pk, kb.pk) && templatesOverlap(ka.sk, kb.sk)) {
          found.push(`${all[x].entity}.${all[x].name} and ${all[y].entity}.${all[y].name} (${space}: ${ka.pk} ${ka.sk} / ${kb.pk} ${kb.sk})`);
        }
      }
    }
  }
  return found;
}

/** Queries that could return an item kind they do not read. */
export function queryIntrusions(all: readonly RegisteredItem[] = items, allQueries: readonly RegisteredQuery[] = queries): string[] {
  const found: string[] = [];
  for (const query of allQueries) {
    const space = query.index ?? 'base';
    for (const item of all) {
      const key = spacesOf(item)[space];
      if (!key || !templatesOverlap(key.pk, query.pk) || !templateCanStartWith(key.sk, query.skPrefix ?? '')) continue;
      const intended = item.entity === query.entity && (!query.reads || query.reads.includes(item.name));
      if (!intended) found.push(`"${query.what}" (${query.entity}: ${query.pk} ${query.skPrefix ?? ''}) can return ${item.entity}.${item.name} (${key.pk} ${key.sk})`);
    }
  }
  return found;
}

/** The access-pattern table (docs/access-patterns.md), written from the registry. */
export function accessPatternTable(all: readonly RegisteredItem[] = items, allQueries: readonly RegisteredQuery[] = queries): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [
    '# Access patterns of the single table',
    '',
    'Written from the key registry (`functions/data/key-registry.ts`) by `npm run docs:keys`; a test fails when it falls behind.',
    'Every key is built next to its entity\'s store; every access is a GetItem, a BatchGet or a Query, never a Scan.',
    '`<x>` is a value without `#`, `<x*>` any value.',
    '',
  ];
  const byEntity = new Map<string, { items: RegisteredItem[]; queries: RegisteredQuery[] }>();
  for (const item of all) {
    const entry = byEntity.get(item.entity) ?? { items: [], queries: [] };
    entry.items.push(item);
    byEntity.set(item.entity, entry);
  }
  for (const query of allQueries) byEntity.get(query.entity)?.queries.push(query);
  for (const entity of [...byEntity.keys()].sort()) {
    const entry = byEntity.get(entity)!;
    lines.push(`## ${entity}`, '', '| item or query | key condition |', '|---|---|');
    for (const item of entry.items) {
      const parts = [
        item.pk !== undefined ? `pk = ${item.pk}` : '',
        item.sk !== undefined ? `sk = ${item.sk || "''"}` : '',
        item.gsi1pk !== undefined ? `gsi1pk = ${item.gsi1pk}` : '',
        item.gsi1sk !== undefined ? `gsi1sk = ${item.gsi1sk}` : '',
      ].filter(Boolean);
      lines.push(`| ${cell(item.what)} | ${cell(parts.map((p) => `\`${p}\``).join(', '))} |`);
    }
    for (const query of entry.queries) {
      const on = query.index ? `${query.index}: ` : '';
      const pk = query.index ? 'gsi1pk' : 'pk';
      const sk = query.index ? 'gsi1sk' : 'sk';
      const condition = `${on}\`${pk} = ${query.pk}\`${query.skPrefix ? `, \`${sk} begins_with ${query.skPrefix}\`` : ''}`;
      lines.push(`| query: ${cell(query.what)} | ${cell(condition)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
