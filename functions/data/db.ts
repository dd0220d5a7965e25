import type { Key } from './store';

/**
 * The entities of the single table and their keys. Key builders live here, next to the access
 * patterns they serve (see table.ts); nothing else spells a key.
 */
export const keys = {
  /**
   * An inspection test (links, images, accessibility, code analysis) of an account, in a partition
   * per kind; ids start with their creation second (objectId), so the partition is in creation order.
   */
  inspectTest: (accountId: string, kind: string, id = ''): Key => ({ pk: `ACCT#${accountId}#INSPECT#${kind}`, sk: id }),
  /** An email preview test of an account (ids are random, so the partition is listed and sorted by creation time). */
  previewTest: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEW`, sk: id }),
  /** One client of a preview test: its status, attempts and screenshots, updated on its own. */
  previewClient: (accountId: string, testId: string, clientId = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEW#${testId}`, sk: clientId }),
  /** A preview test's export jobs; job ids start with their creation second, so the last is the latest. */
  previewExport: (accountId: string, testId: string, jobId = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEWEXPORT#${testId}`, sk: jobId }),
  /** A preview test's share (one per test). */
  previewShare: (accountId: string, testId: string): Key => ({ pk: `ACCT#${accountId}#PREVIEWSHARE`, sk: testId }),
  /** The account's preview address (POST /v2/preview/address): mail to it becomes a preview test. */
  previewAddress: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'PREVIEWADDRESS' }),
  /** Whose a preview address is, by its local part, for the inbound path. */
  previewAddressOwner: (localPart: string): Key => ({ pk: `PREVIEWADDRESS#${localPart}`, sk: 'OWNER' }),
  /** A share by its public uuid, which is all a visitor of the share page has. */
  previewShareUuid: (uuid: string): Key => ({ pk: `PREVIEWSHARE#${uuid}`, sk: 'SHARE' }),
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



