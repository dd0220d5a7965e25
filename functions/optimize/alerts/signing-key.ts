import { replaceSealedSecret, sealedSecret } from '../../data/sealed-secret';
import { randomHex } from '../../platform/ids';
import { alertKeys } from './settings-store';

/**
 * The account's alerts webhook signing key: 32 hex digits, apart from the send webhooks' key, made
 * on first use and stored sealed with the platform key. Deliveries read it every time (no cache),
 * so a rotated key stops signing at once.
 */
const newKey = () => randomHex(16);

/** The account's key, created if it has none yet. */
export const alertSigningKey = (accountId: string): Promise<string> => sealedSecret(alertKeys.alertSigningKey(accountId), newKey);

/** Replaces the key: the next delivery is signed with the new one, the old one signs nothing more. */
export const rotateAlertSigningKey = (accountId: string): Promise<string> => replaceSealedSecret(alertKeys.alertSigningKey(accountId), newKey);
