import { env } from '../../platform/env';
import { logger } from '../../platform/logger';
import { parseTrapList, type TrapList } from './trap-list-syntax';
import type { TrapType } from './trap-types';

export { parseTrapList, type TrapList } from './trap-list-syntax';

let parsed: { source: string; list: TrapList | undefined } | undefined;

/** The configured list, parsed once per value (undefined when none is configured). */
export function operatorTrapList(): TrapList | undefined {
  const source = env().SPAM_TRAP_LIST;
  if (!source?.trim()) return undefined;
  if (parsed?.source !== source) {
    try {
      parsed = { source, list: parseTrapList(source) };
    } catch (error) {
      // The hosts check the setting at start and at synth (lib/setting-checks.ts); should a bad one get here,
      // counting goes on without the list rather than failing every batch of the event stream.
      logger.error('SPAM_TRAP_LIST cannot be read: no operator trap list is used', { error: error as Error });
      parsed = { source, list: undefined };
    }
  }
  return parsed.list;
}

/** The kind of trap an address is on the operator's list, by address, then by its domain. */
export function listedTrap(list: TrapList, address: string): TrapType | undefined {
  const normal = address.toLowerCase();
  return list.addresses.get(normal) ?? list.domains.get(normal.split('@')[1] ?? '');
}
