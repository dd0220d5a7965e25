import type { Key } from './store';

/**
 * The entities of the single table and their keys. Key builders live here, next to the access
 * patterns they serve (see table.ts); nothing else spells a key.
 */
export const keys = {
  /** The operator's seed mailboxes for inbox placement (region-wide, few): one item each, by address. */
  seedMailbox: (email = ''): Key => ({ pk: 'SYSTEM#seed-mailboxes', sk: email }),
  /** An account's seed lists, by target address (`/v4/inbox/seedlists/{address}`). */
  seedList: (accountId: string, target = ''): Key => ({ pk: `ACCT#${accountId}#SEEDLISTS`, sk: target }),
  /** Which account a seed list's target address belongs to: what the inbound path looks up. */
  seedTarget: (target: string): Key => ({ pk: `SEEDTARGET#${target}`, sk: 'OWNER' }),
  /** An account's placement results, by id (objectIds: creation order). */
  placementResult: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#PLACEMENT`, sk: id }),
  /** A placement test sent by POST /v4/inbox/tests, by its Message-ID, until its copy reaches the target. */
  placementSend: (messageId: string): Key => ({ pk: `PLACEMENTSEND#${messageId}`, sk: 'SEND' }),
  /** A shared result, by its share id (the unguessable part of the public link). */
  placementShare: (shareId: string): Key => ({ pk: `PLACEMENTSHARE#${shareId}`, sk: 'SHARE' }),
};



