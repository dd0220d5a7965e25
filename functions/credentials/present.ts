import { rfc1123 } from '../platform/dates';
import type { CredentialItem } from './credential-store';

/**
 * A credential as GET …/credentials lists it (contract §12.2): never its password or hash.
 * `size_bytes` is a mailbox size, and Mailgun hosts no mailboxes: always null, as its API shows.
 */
export function credentialJson(credential: CredentialItem) {
  return { login: credential.login, mailbox: credential.mailbox, created_at: rfc1123(credential.createdAt), size_bytes: null };
}
