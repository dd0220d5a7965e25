import addressparser from 'nodemailer/lib/addressparser';
import { BadRequest } from '../platform/errors';

export interface Mailbox {
  address: string;
  name: string;
}

export const MAX_RECIPIENTS = 1000;

// Deliberately plain: what SES accepts, not every RFC 5322 corner (quoted local parts are refused).
const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isAddress(value: string): boolean {
  return ADDRESS.test(value);
}

/** Repeated fields and comma-separated lists alike, with display names; every address must be valid. */
export function parseMailboxes(field: string, values: string[]): Mailbox[] {
  const out: Mailbox[] = [];
  for (const value of values) {
    for (const entry of addressparser(value, { flatten: true }) as Mailbox[]) {
      if (!entry.address || !isAddress(entry.address)) {
        throw new BadRequest(`'${field}' parameter is not a valid address. please check documentation`);
      }
      out.push({ address: entry.address, name: entry.name ?? '' });
    }
  }
  return out;
}

export function formatMailbox(mailbox: Mailbox): string {
  return mailbox.name ? `"${mailbox.name.replace(/"/g, '')}" <${mailbox.address}>` : mailbox.address;
}
