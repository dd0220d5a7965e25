import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { ZoneEntry } from './dns-server';

export type PublishedType = 'CNAME' | 'TXT' | 'MX';

export interface PublishedRecord {
  name: string;
  type: PublishedType;
  value: string;
  /** MX only. */
  priority?: number;
}

const HEADER = `# Records this region's local DNS server publishes besides each domain's own: what you
# would add at your DNS provider. One record a line: <name> <type> <value>, type CNAME, TXT or MX
# (MX: <name> MX <priority> <exchange>). Read again whenever this file changes.
#
# The tracking CNAME and a tracking certificate's ACM validation CNAME are not published for you
# (see docs/sending.md, "Tracking over HTTPS"); for example:
#   email.mg.example.com                 CNAME  localhost
#   _0123abcd...89.email.mg.example.com  CNAME  _4567ef...01.acm-validations.aws
`;

const normalized = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

export function parseRecords(text: string): PublishedRecord[] {
  const records: PublishedRecord[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    const [name, type, ...rest] = line.split(/\s+/);
    const upper = type?.toUpperCase();
    if (!name || !rest.length) continue;
    if (upper === 'CNAME') records.push({ name: normalized(name), type: 'CNAME', value: normalized(rest[0]!) });
    else if (upper === 'TXT') records.push({ name: normalized(name), type: 'TXT', value: rest.join(' ').replace(/^"(.*)"$/, '$1') });
    else if (upper === 'MX' && rest.length >= 2 && Number.isInteger(Number(rest[0]))) records.push({ name: normalized(name), type: 'MX', priority: Number(rest[0]), value: normalized(rest[1]!) });
  }
  return records;
}

function lineOf(record: PublishedRecord): string {
  const value = record.type === 'MX' ? `${record.priority ?? 10} ${record.value}` : record.type === 'TXT' ? `"${record.value}"` : record.value;
  return `${record.name} ${record.type} ${value}`;
}

/**
 * What a user (or a test) publishes in a region's local DNS by hand: kept in a text file in the
 * region's data dir (`dns-zone.txt`, re-read when it changes), or in memory without a data dir.
 * A name published here answers from here only, ahead of the records of the domain it belongs to.
 */
export class PublishedRecords {
  private records: PublishedRecord[] = [];
  private readAt = -1;

  constructor(readonly file?: string) {
    if (file && !existsSync(file)) writeFileSync(file, HEADER);
  }

  /** Adds a record (a CNAME replaces the name's other records, as DNS allows nothing beside one). */
  publish(record: PublishedRecord): void {
    const entry = { ...record, name: normalized(record.name), value: record.type === 'TXT' ? record.value : normalized(record.value) };
    const kept = this.all().filter((r) => r.name !== entry.name || (entry.type !== 'CNAME' && r.type !== 'CNAME' && !(r.type === entry.type && r.value === entry.value)));
    this.save([...kept, entry]);
  }

  /** Removes a name's records (of one type, or all). */
  unpublish(name: string, type?: PublishedType): void {
    const target = normalized(name);
    this.save(this.all().filter((r) => r.name !== target || (type !== undefined && r.type !== type)));
  }

  all(): PublishedRecord[] {
    if (this.file && existsSync(this.file)) {
      const mtime = statSync(this.file).mtimeMs;
      if (mtime !== this.readAt) {
        this.records = parseRecords(readFileSync(this.file, 'utf8'));
        this.readAt = mtime;
      }
    }
    return this.records;
  }

  /** What the DNS server answers for a name published here; undefined when none is. */
  entry(name: string): ZoneEntry | undefined {
    const records = this.all().filter((r) => r.name === normalized(name));
    if (!records.length) return undefined;
    const cname = records.find((r) => r.type === 'CNAME');
    if (cname) return { cname: cname.value };
    return {
      txt: records.filter((r) => r.type === 'TXT').map((r) => r.value),
      mx: records.filter((r) => r.type === 'MX').map((r) => ({ exchange: r.value, priority: r.priority ?? 10 })),
    };
  }

  private save(records: PublishedRecord[]): void {
    this.records = records;
    if (!this.file) return;
    // The header and the user's comments stay; the records are written after them.
    const comments = existsSync(this.file)
      ? readFileSync(this.file, 'utf8')
          .split('\n')
          .filter((line) => /^\s*(#|$)/.test(line))
          .join('\n')
          .trimEnd()
      : HEADER.trimEnd();
    writeFileSync(this.file, `${comments}\n${records.map(lineOf).join('\n')}\n`);
    this.readAt = statSync(this.file).mtimeMs;
  }
}
