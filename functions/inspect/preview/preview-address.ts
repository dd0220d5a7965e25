import { getItem, putItem, type Key } from '../../data/store';
import { env } from '../../platform/env';
import { randomHex } from '../../platform/ids';
import { PreviewError } from './preview-error';
import { defineEntity } from '../../data/key-registry';

const previewAddressKeys = defineEntity(
  'preview addresses',
  {
    previewAddress: { what: "the account's preview address (POST /v2/preview/address): mail to it becomes a preview test", pk: 'ACCT#<account>', sk: 'PREVIEWADDRESS', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'PREVIEWADDRESS' }) },
    previewAddressOwner: { what: 'whose a preview address is, by its local part, for the inbound path', pk: 'PREVIEWADDRESS#<local part>', sk: 'OWNER', key: (localPart: string): Key => ({ pk: `PREVIEWADDRESS#${localPart}`, sk: 'OWNER' }) },
  },
);

interface PreviewAddressItem {
  accountId: string;
  localPart: string;
  address: string;
}

/**
 * The account's preview address, made on first request (contract §5.9): a random local part on
 * PREVIEW_INBOX_DOMAIN. Mail to it (or to `<local>+<customer_id>@`) becomes a preview test
 * (functions/inspect/preview/inbound-preview.ts).
 */
export async function previewAddressOf(accountId: string): Promise<string> {
  const domain = env().PREVIEW_INBOX_DOMAIN;
  if (!domain) throw new PreviewError(400, 'BadRequest', 'Previews by email are not configured on this platform (PREVIEW_INBOX_DOMAIN)');
  const existing = await getItem<PreviewAddressItem>(previewAddressKeys.previewAddress(accountId));
  if (existing) return existing.address;
  const localPart = `preview-${randomHex(8)}`;
  const item: PreviewAddressItem = { accountId, localPart, address: `${localPart}@${domain}` };
  // The owner first: an address is never handed out before mail to it can find its account.
  await putItem(previewAddressKeys.previewAddressOwner(localPart), item);
  if (await putItem(previewAddressKeys.previewAddress(accountId), item, { ifAbsent: true })) return item.address;
  // Another request made one first: that one is the account's.
  return (await getItem<PreviewAddressItem>(previewAddressKeys.previewAddress(accountId), { consistent: true }))!.address;
}

/** The account a preview address belongs to, from its local part (any `+suffix` removed). */
export async function previewAddressOwner(localPart: string): Promise<string | undefined> {
  const item = await getItem<PreviewAddressItem>(previewAddressKeys.previewAddressOwner(localPart.split('+')[0]!.toLowerCase()));
  return item?.accountId;
}
