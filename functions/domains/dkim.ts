import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export const DKIM_KEY_SIZES = [1024, 2048] as const;

export interface DkimKeyPair {
  /** Base64 SubjectPublicKeyInfo DER, as published in `p=`. */
  publicKey: string;
  /** PKCS#1 PEM: the form Amazon SES takes for Bring-Your-Own-DKIM (without its armour). */
  privateKeyPem: string;
}

export async function generateDkimKey(bits: number): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { publicKey: Buffer.from(publicKey).toString('base64'), privateKeyPem: privateKey };
}

/** The base64 body of a PEM, which is what SES's DomainSigningPrivateKey expects. */
export function pemBody(pem: string): string {
  return pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
}

export function dkimRecordValue(publicKey: string): string {
  return `k=rsa; p=${publicKey}`;
}

/** The `p=` of a DKIM TXT record, spaces removed; undefined if it has none. */
export function publicKeyOf(record: string): string | undefined {
  const match = /(?:^|;)\s*p\s*=\s*([^;]*)/i.exec(record);
  return match ? match[1]!.replace(/\s+/g, '') : undefined;
}
