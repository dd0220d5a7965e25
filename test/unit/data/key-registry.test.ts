import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { accessPatternTable, keyCollisions, queryIntrusions, registeredItems, registeredQueries } from '../../../functions/entities';
import { fitsTemplate, templateCanStartWith, templatesOverlap, type RegisteredItem } from '../../../functions/data/key-registry';

const root = join(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const functionsFiles = sourceFiles(join(root, 'functions'));
const registering = functionsFiles.filter((file) => /\bdefineEntity\(/.test(readFileSync(file, 'utf8')) && !file.endsWith('key-registry.ts'));

describe('the template language', () => {
  it('tells overlapping templates apart from disjoint ones', () => {
    expect(templatesOverlap('ACCT#<account>', 'ACCT#<account>#LISTS')).toBe(false);
    expect(templatesOverlap('ACCT#<account>', 'ACCT#<a*>')).toBe(true);
    expect(templatesOverlap('SYSTEM#<name>', 'SYSTEM#primary-account')).toBe(true);
    expect(templatesOverlap('LIMIT#MONTHLY', 'LIMIT#MONTHLY#<month>')).toBe(false);
    expect(templatesOverlap('<x*>', '')).toBe(false);
    expect(templateCanStartWith('LIMIT#MONTHLY#<month>', 'LIMIT#MONTHLY')).toBe(true);
    expect(templateCanStartWith('TAGCOUNT', 'TAGCOUNT#')).toBe(false);
    expect(templateCanStartWith('M#<address*>', '')).toBe(true);
    expect(fitsTemplate('ACCT#a1#LIST#b2', 'ACCT#<account>#LIST#<list id>')).toBe(true);
    expect(fitsTemplate('ACCT#a#1#LISTS', 'ACCT#<account>#LISTS')).toBe(false);
  });

  it('finds a collision and an intrusion planted between two entities', () => {
    const planted: RegisteredItem[] = [
      { entity: 'a', name: 'x', what: 'x', pk: 'ACCT#<account>', sk: 'LIMIT#<kind>' },
      { entity: 'b', name: 'y', what: 'y', pk: 'ACCT#<account>', sk: 'LIMIT#MONTHLY' },
    ];
    expect(keyCollisions(planted)).toHaveLength(1);
    expect(queryIntrusions(planted.slice(1), [{ entity: 'a', what: 'q', pk: 'ACCT#<account>', skPrefix: 'LIMIT#' }])).toHaveLength(1);
  });
});

describe('the registry', () => {
  it('holds every store that defines an entity (functions/entities.ts imports them all)', () => {
    const listed = readFileSync(join(root, 'functions/entities.ts'), 'utf8');
    const missing = registering.map((file) => `./${relative(join(root, 'functions'), file).replace(/\.ts$/, '')}`).filter((module) => !listed.includes(`'${module}'`));
    expect(missing).toEqual([]);
  });

  it('has no two item kinds that can be given the same key', () => {
    expect(registeredItems().length).toBeGreaterThan(0);
    expect(keyCollisions()).toEqual([]);
  });

  it('has no query that can return an item kind it does not read', () => {
    expect(queryIntrusions()).toEqual([]);
  });

  it('builds every key in the shape it registered', () => {
    const wrong: string[] = [];
    for (const item of registeredItems()) {
      if (!item.key) continue;
      const built = item.key('a0', 'a1', 'a2', 'a3', 'a4', 'a5') as unknown as Record<string, string>;
      for (const part of ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const) {
        const template = item[part];
        if (template === undefined && built[part] === undefined) continue;
        if (template === undefined || built[part] === undefined || !fitsTemplate(built[part], template)) wrong.push(`${item.entity}.${item.name}.${part}: ${built[part]} against ${template}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names each query in a partition some item kind of its entity is in', () => {
    const orphans = registeredQueries().filter(
      (query) => !registeredItems().some((item) => item.entity === query.entity && templatesOverlap((query.index ? item.gsi1pk : item.pk) ?? '\u0000', query.pk)),
    );
    expect(orphans.map((query) => `${query.entity}: ${query.what}`)).toEqual([]);
  });

  it('leaves no key spelled outside the stores that define its entity', () => {
    // A partition key's fixed head (ACCT#, SYSTEM#, APIKEY#, ...) in a string outside those stores is
    // a key spelled by hand.
    const heads = new Set(
      registeredItems()
        .flatMap((item) => [item.pk, item.gsi1pk])
        .map((pk) => /^([A-Z]+#)/.exec(pk ?? '')?.[1])
        .filter((head): head is string => Boolean(head)),
    );
    const pattern = new RegExp(`[\`'"](${[...heads].join('|')})`);
    const spelled = ['functions', 'lib', 'bin', 'bench']
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .filter((file) => !registering.includes(file) && pattern.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(spelled).toEqual([]);
  });

  it('is what docs/access-patterns.md says (`npm run docs:keys` writes it)', () => {
    expect(readFileSync(join(root, 'docs/access-patterns.md'), 'utf8')).toBe(accessPatternTable());
  });
});
