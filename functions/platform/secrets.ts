import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { secretsClient } from './aws-clients';
import { env } from './env';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/**
 * API keys are 128+ bits of randomness, so a plain SHA-256 is a sound one-way store and lets the
 * authorizer find a key with one GetItem. Low-entropy secrets (SMTP passwords) use scrypt instead.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(expected, actual);
}

/** The AES-256 key of the platform key's material: any string works, hashing it gives the 32 bytes. */
export function sealingKey(material: string): Buffer {
  return createHash('sha256').update(material).digest();
}

const keyCache = new Map<string, Promise<Buffer>>();

async function loadKey(): Promise<Buffer> {
  const { ENCRYPTION_KEY, ENCRYPTION_KEY_SECRET_ID } = env();
  const id = ENCRYPTION_KEY ? `inline:${sha256Hex(ENCRYPTION_KEY)}` : `secret:${ENCRYPTION_KEY_SECRET_ID ?? ''}`;
  let key = keyCache.get(id);
  if (!key) {
    key = (async () => {
      let material = ENCRYPTION_KEY;
      if (!material && ENCRYPTION_KEY_SECRET_ID) {
        const out = await secretsClient().send(new GetSecretValueCommand({ SecretId: ENCRYPTION_KEY_SECRET_ID }));
        material = out.SecretString;
      }
      if (!material) throw new Error('No encryption key configured (ENCRYPTION_KEY or ENCRYPTION_KEY_SECRET_ID)');
      return sealingKey(material);
    })();
    key.catch(() => keyCache.delete(id));
    keyCache.set(id, key);
  }
  return key;
}

/** Derived keys per platform key (the loaded key is cached, so one Buffer per key in use). */
const derivedKeys = new WeakMap<Buffer, Map<string, Buffer>>();

/**
 * A key for one purpose (signing tracking links, say), derived from the platform key once per
 * purpose: tracked mail signs a few links per recipient, up to a thousand recipients a request.
 */
export async function derivedKey(purpose: string): Promise<Buffer> {
  const key = await loadKey();
  let byPurpose = derivedKeys.get(key);
  if (!byPurpose) derivedKeys.set(key, (byPurpose = new Map()));
  let derived = byPurpose.get(purpose);
  if (!derived) byPurpose.set(purpose, (derived = createHmac('sha256', key).update(`mailplane:${purpose}`).digest()));
  return derived;
}

/** AES-256-GCM under `key` (sealingKey); the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function sealWith(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** What sealWith sealed under `key`; throws if it was sealed under another key, or altered. */
export function unsealWith(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** Seals a secret with the platform key. */
export async function encryptSecret(plaintext: string): Promise<string> {
  return sealWith(await loadKey(), plaintext);
}

export async function decryptSecret(sealed: string): Promise<string> {
  return unsealWith(await loadKey(), sealed);
}
