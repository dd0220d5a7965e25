import { PreviewError } from './preview-error';
import type { PreviewTest } from './preview-store';

/** The list's filters (contract §5.3): customer, a date window, a subject fragment and X- header values. */
export interface ListQuery {
  customerId?: string;
  from?: number;
  to?: number;
  subject?: string;
  headers: Array<[string, string]>;
}

const DAY = 86_400;

/** `2025-03-10 17:52:07` (UTC), unix seconds, or now / today / yesterday / tomorrow. */
export function parseListTime(value: string, field: string, now = Date.now()): number {
  const text = value.trim().toLowerCase();
  const midnight = Math.floor(now / 1000 / DAY) * DAY;
  if (/^\d+$/.test(text)) return Number(text);
  if (text === 'now') return Math.floor(now / 1000);
  if (text === 'today') return midnight;
  if (text === 'yesterday') return midnight - DAY;
  if (text === 'tomorrow') return midnight + DAY;
  const iso = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$/.test(text) ? `${text.replace(' ', 'T')}${text.length > 10 ? '' : 'T00:00:00'}Z` : text;
  const parsed = Date.parse(iso);
  if (Number.isNaN(parsed)) throw new PreviewError(400, 'InvalidParameter', `Invalid '${field}': use 'YYYY-MM-DD HH:MM:SS', unix seconds, or a word such as 'yesterday'`);
  return Math.floor(parsed / 1000);
}

export function listQuery(params: Record<string, unknown>): ListQuery {
  const one = (name: string) => {
    const value = params[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const headers: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(params)) {
    const name = /^headers\[(.+)\]$/.exec(key)?.[1];
    if (name && typeof value === 'string') headers.push([name.toLowerCase(), value]);
  }
  const from = one('from');
  const to = one('to');
  return { customerId: one('customer_id'), from: from ? parseListTime(from, 'from') : undefined, to: to ? parseListTime(to, 'to') : undefined, subject: one('subject')?.toLowerCase(), headers };
}

export function matchesListQuery(test: PreviewTest, query: ListQuery): boolean {
  if (query.customerId !== undefined && test.customerId !== query.customerId) return false;
  if (query.from !== undefined && test.date < query.from) return false;
  if (query.to !== undefined && test.date > query.to) return false;
  if (query.subject !== undefined && !test.subject.toLowerCase().includes(query.subject)) return false;
  const headers = new Map(Object.entries(test.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return query.headers.every(([name, value]) => headers.get(name) === value);
}
