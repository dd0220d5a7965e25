import { TRAP_TYPES, type TrapType } from './trap-types';

/**
 * The operator's trap list (SPAM_TRAP_LIST): addresses or whole domains the operator owns or
 * licenses as traps, each with its kind, as `type:entry` separated by commas or new lines, an entry
 * being an address (`pristine:trap@example.net`) or a domain (`typo:gmial.com`, `recycled:@old.example`).
 * Every send to one is a hit of that kind: the only source of pristine and harvested hits.
 */
export interface TrapList {
  addresses: Map<string, TrapType>;
  domains: Map<string, TrapType>;
}

/** Reads SPAM_TRAP_LIST; an entry that is not `type:address-or-domain` is a configuration error. */
export function parseTrapList(source: string): TrapList {
  const list: TrapList = { addresses: new Map(), domains: new Map() };
  for (const raw of source.split(/[,\n]/)) {
    const entry = raw.trim();
    if (!entry) continue;
    const colon = entry.indexOf(':');
    const type = entry.slice(0, colon).trim().toLowerCase() as TrapType;
    const target = entry.slice(colon + 1).trim().toLowerCase();
    if (colon < 1 || !TRAP_TYPES.includes(type) || !target) throw new Error(`SPAM_TRAP_LIST: '${entry}' is not <${TRAP_TYPES.join('|')}>:<address or domain>`);
    if (target.includes('@') && !target.startsWith('@')) list.addresses.set(target, type);
    else list.domains.set(target.replace(/^@/, ''), type);
  }
  return list;
}

