import { BadRequest } from '../platform/errors';
import type { EventData } from './event-store';

/**
 * Mailgun's filter expressions (contract §6.1) for the fields the events API filters on:
 * `foo bar` is AND, `foo OR bar`, `NOT foo`, and "quoted phrases". Matching is case-insensitive.
 */
export const FILTER_FIELDS = ['event', 'recipient', 'from', 'message-id', 'tags', 'severity', 'subject', 'to'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

type Term = { not: boolean; value: string };
/** OR of ANDs of terms. */
export type Expression = Term[][];

function tokens(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|(\S+)/g)) out.push(match[1] ?? match[2]!);
  return out;
}

export function parseExpression(field: string, text: string): Expression {
  const groups: Term[][] = [[]];
  let not = false;
  for (const token of tokens(text)) {
    if (token === 'OR') {
      if (!groups.at(-1)!.length) throw new BadRequest(`Invalid filter for '${field}': OR needs a value on each side`);
      groups.push([]);
    } else if (token === 'NOT') not = true;
    else {
      groups.at(-1)!.push({ not, value: token.toLowerCase() });
      not = false;
    }
  }
  if (!groups.at(-1)!.length) throw new BadRequest(`Invalid filter for '${field}': it names no value`);
  return groups;
}

const stripBrackets = (id: string) => id.replace(/^<|>$/g, '');

function valuesOf(field: FilterField, data: EventData): string[] {
  const message = (data['message'] ?? {}) as { headers?: Record<string, string> };
  const headers = message.headers ?? {};
  switch (field) {
    case 'event':
      return [data.event];
    case 'recipient':
      return [String(data['recipient'] ?? '')];
    case 'severity':
      return [String(data['severity'] ?? '')];
    case 'tags':
      return (data['tags'] as string[] | undefined) ?? [];
    case 'message-id':
      return [stripBrackets(headers['message-id'] ?? '')];
    case 'from':
      return [headers['from'] ?? ''];
    case 'to':
      return [headers['to'] ?? ''];
    case 'subject':
      return [headers['subject'] ?? ''];
  }
}

/** `from`, `to` and `subject` hold display text, so a term matches a part of them; the rest match whole values. */
function termMatches(field: FilterField, values: string[], value: string): boolean {
  const lowered = values.map((v) => v.toLowerCase());
  if (field === 'from' || field === 'to' || field === 'subject') return lowered.some((v) => v.includes(value));
  if (field === 'message-id') return lowered.includes(stripBrackets(value));
  return lowered.includes(value);
}

export function matches(filters: Partial<Record<FilterField, Expression>>, data: EventData): boolean {
  return Object.entries(filters).every(([name, expression]) => {
    const field = name as FilterField;
    const values = valuesOf(field, data);
    return expression!.some((group) => group.every((term) => termMatches(field, values, term.value) !== term.not));
  });
}
