import { randomUUID } from 'node:crypto';
import { deleteItem, getItem, putItem, updateItemIf, type Key } from '../../data/store';
import { defineEntity } from '../../data/key-registry';

const shareKeys = defineEntity(
  'preview shares',
  {
    previewShare: { what: "a preview test's share (one per test)", pk: 'ACCT#<account>#PREVIEWSHARE', sk: '<test id>', key: (accountId: string, testId: string): Key => ({ pk: `ACCT#${accountId}#PREVIEWSHARE`, sk: testId }) },
    previewShareUuid: { what: 'a share by its public uuid, which is all a visitor of the share page has', pk: 'PREVIEWSHARE#<uuid>', sk: 'SHARE', key: (uuid: string): Key => ({ pk: `PREVIEWSHARE#${uuid}`, sk: 'SHARE' }) },
  },
);

/** A share's lifetime (contract §5.11, proposed): 30 days, reset by rotate. */
const SHARE_LIFETIME_MS = 30 * 86_400_000;

export interface PreviewShare {
  accountId: string;
  testId: string;
  url_uuid: string;
  enabled: boolean;
  expires_at: string;
  /** Removes the share's items once expired and a day more (the expiry itself is checked on read). */
  ttl: number;
}

/** What the uuid's item holds: enough to find the share, which stays the one record of truth. */
interface ShareLookup {
  accountId: string;
  testId: string;
  ttl: number;
}

const ttlOf = (expiresAt: number) => Math.floor(expiresAt / 1000) + 86_400;

function freshShare(accountId: string, testId: string, now: number): PreviewShare {
  const expires = now + SHARE_LIFETIME_MS;
  return { accountId, testId, url_uuid: randomUUID(), enabled: true, expires_at: new Date(expires).toISOString(), ttl: ttlOf(expires) };
}

export function findShare(accountId: string, testId: string): Promise<PreviewShare | undefined> {
  return getItem<PreviewShare>(shareKeys.previewShare(accountId, testId), { consistent: true });
}

/** Creates the test's share unless it has one (one share per test); answers the share either way. */
export async function createShare(accountId: string, testId: string, now = Date.now()): Promise<PreviewShare> {
  const share = freshShare(accountId, testId, now);
  // The uuid's item first: a share is never visible with a uuid that does not lead back to it.
  await putItem(shareKeys.previewShareUuid(share.url_uuid), { accountId, testId, ttl: share.ttl } satisfies ShareLookup);
  if (await putItem(shareKeys.previewShare(accountId, testId), share, { ifAbsent: true })) return share;
  await deleteItem(shareKeys.previewShareUuid(share.url_uuid));
  return (await findShare(accountId, testId))!;
}

/** A new uuid and a new 30 days; the old uuid stops working at once. */
export async function rotateShare(share: PreviewShare, now = Date.now()): Promise<PreviewShare | undefined> {
  const next = { ...freshShare(share.accountId, share.testId, now), enabled: share.enabled };
  await putItem(shareKeys.previewShareUuid(next.url_uuid), { accountId: share.accountId, testId: share.testId, ttl: next.ttl } satisfies ShareLookup);
  const moved = await updateItemIf(shareKeys.previewShare(share.accountId, share.testId), { url_uuid: share.url_uuid }, { url_uuid: next.url_uuid, expires_at: next.expires_at, ttl: next.ttl });
  if (!moved) {
    await deleteItem(shareKeys.previewShareUuid(next.url_uuid));
    return undefined;
  }
  await deleteItem(shareKeys.previewShareUuid(share.url_uuid));
  return next;
}

export async function setShareEnabled(share: PreviewShare, enabled: boolean): Promise<boolean> {
  return updateItemIf(shareKeys.previewShare(share.accountId, share.testId), { url_uuid: share.url_uuid }, { enabled });
}

export async function deleteShare(share: PreviewShare): Promise<void> {
  await deleteItem(shareKeys.previewShareUuid(share.url_uuid));
  await deleteItem(shareKeys.previewShare(share.accountId, share.testId));
}

/** The share a visitor's uuid opens: only while it is that share's current uuid, enabled and not expired. */
export async function openShare(uuid: string, now = Date.now()): Promise<PreviewShare | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid)) return undefined;
  const lookup = await getItem<ShareLookup>(shareKeys.previewShareUuid(uuid), { consistent: true });
  if (!lookup) return undefined;
  const share = await findShare(lookup.accountId, lookup.testId);
  if (!share || share.url_uuid !== uuid || !share.enabled || Date.parse(share.expires_at) <= now) return undefined;
  return share;
}
