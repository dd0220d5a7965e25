import { ImapFlow } from 'imapflow';
import { forbiddenAddressCategory } from '../../webhooks/address-policy';
import { DeliveryError, guardedLookup } from '../../webhooks/http-post';
import { literalAddress, webhookAddressPolicy } from '../../webhooks/url-policy';
import { SEED_REACH, type SeedLogin } from './seed-mailboxes';

/**
 * Finding one message in one seed mailbox over IMAP (optimize contract 2.3): by its Message-ID,
 * in INBOX, then the special-use Junk folder (RFC 6154: Gmail's [Gmail]/Spam, Yahoo's Bulk,
 * Outlook's Junk Email), then Gmail's All Mail (a message filed under a label or archived by a
 * filter). On Gmail the tab comes from an X-GM-RAW `category:` search.
 */
export interface FoundCopy {
  destination: 'inbox' | 'spam';
  /** The folder it was found in, as the server names it. */
  folder: string;
  headers: Array<{ key: string; value: string }>;
  /** Gmail's tab (primary, promotions, social, updates, forums), when the server is Gmail. */
  category?: string;
  receivedAt: string;
}

const GMAIL_CATEGORIES = ['primary', 'promotions', 'social', 'updates', 'forums'] as const;

/** How long one seed's sign-in and searches may take before the poll moves on (it tries again next round). */
const SEED_TIMEOUT_MS = 30_000;

export function headerList(raw: Buffer): Array<{ key: string; value: string }> {
  const text = raw.toString('utf8').split(/\r?\n\r?\n/)[0] ?? '';
  const out: Array<{ key: string; value: string }> = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && out.length) out[out.length - 1]!.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) out.push({ key: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
    }
  }
  return out;
}

/**
 * A client for one seed, connecting only where the address policy allows: an IP literal is judged
 * here (Node looks none up), a name by the lookup the socket itself uses, so a name that resolves
 * elsewhere since the seed was saved is judged where it points now. STARTTLS and TLS run over that
 * same socket.
 */
function imapClient(login: SeedLogin): ImapFlow {
  const policy = webhookAddressPolicy();
  const literal = literalAddress(login.host);
  const category = literal && forbiddenAddressCategory(literal, policy);
  if (category) throw new DeliveryError(`${login.host} resolves to a ${category} address, which ${SEED_REACH} may not reach`, 'forbidden-address');
  return new ImapFlow({
    host: login.host,
    port: login.port,
    secure: login.secure,
    tls: { lookup: guardedLookup(policy, SEED_REACH) },
    auth: login.auth === 'oauth2' ? { user: login.user, accessToken: login.secret } : { user: login.user, pass: login.secret },
    logger: false,
    connectionTimeout: SEED_TIMEOUT_MS,
    greetingTimeout: SEED_TIMEOUT_MS,
    socketTimeout: SEED_TIMEOUT_MS,
  });
}

/** The folders to look in, in order, with what finding the copy there means. */
async function foldersToSearch(client: ImapFlow): Promise<Array<{ path: string; destination: 'inbox' | 'spam' }>> {
  const folders = await client.list();
  const junk = folders.find((f) => f.specialUse === '\\Junk');
  const all = client.capabilities.has('X-GM-EXT-1') ? folders.find((f) => f.specialUse === '\\All') : undefined;
  return [{ path: 'INBOX', destination: 'inbox' as const }, ...(junk ? [{ path: junk.path, destination: 'spam' as const }] : []), ...(all ? [{ path: all.path, destination: 'inbox' as const }] : [])];
}

async function gmailCategory(client: ImapFlow, messageId: string): Promise<string | undefined> {
  const bare = messageId.replace(/^<|>$/g, '');
  for (const category of GMAIL_CATEGORIES) {
    const uids = await client.search({ gmraw: `rfc822msgid:${bare} category:${category}` }, { uid: true });
    if (uids && uids.length) return category;
  }
  return undefined;
}

/** The UID of the copy with this Message-ID in one folder, if it is there. */
async function uidIn(client: ImapFlow, path: string, messageId: string): Promise<number | undefined> {
  const lock = await client.getMailboxLock(path, { readOnly: true });
  try {
    const uids = await client.search({ header: { 'message-id': messageId } }, { uid: true });
    return uids ? uids[0] : undefined;
  } finally {
    lock.release();
  }
}

/** The copy as found in one folder: its headers, date and (on Gmail's inbox) its tab. */
async function copyIn(client: ImapFlow, folder: { path: string; destination: 'inbox' | 'spam' }, uid: number, messageId: string): Promise<FoundCopy | undefined> {
  const lock = await client.getMailboxLock(folder.path, { readOnly: true });
  try {
    const message = await client.fetchOne(String(uid), { headers: true, internalDate: true }, { uid: true });
    if (!message) return undefined;
    const category = client.capabilities.has('X-GM-EXT-1') && folder.destination === 'inbox' ? await gmailCategory(client, messageId) : undefined;
    const internalDate = message.internalDate ? new Date(message.internalDate) : new Date();
    return { destination: folder.destination, folder: folder.path, headers: message.headers ? headerList(message.headers) : [], ...(category ? { category } : {}), receivedAt: internalDate.toISOString() };
  } finally {
    lock.release();
  }
}

/** Looks for the copy with this Message-ID in a mailbox already signed in to. */
async function findCopyWith(client: ImapFlow, messageId: string): Promise<FoundCopy | undefined> {
  const folders = await foldersToSearch(client);
  for (const [index, found] of folders.entries()) {
    let folder = found;
    let uid = await uidIn(client, folder.path, messageId);
    if (uid === undefined) continue;
    // Found only in Gmail's All Mail after INBOX was searched: it may have arrived in between (a
    // message in INBOX is in All Mail too), so INBOX is asked once more before calling it archived.
    if (index > 0 && folder.destination === 'inbox') {
      const inInbox = await uidIn(client, 'INBOX', messageId);
      if (inInbox !== undefined) [folder, uid] = [folders[0]!, inInbox];
    }
    const copy = await copyIn(client, folder, uid, messageId);
    if (copy) return copy;
  }
  return undefined;
}

/** Signs in to the seed, looks for the copy and signs out; a failure to reach it throws (the poll tries again). */
export async function findCopy(login: SeedLogin, messageId: string): Promise<FoundCopy | undefined> {
  const client = imapClient(login);
  // An unhandled 'error' event would crash the process; the awaited calls report the failure.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await findCopyWith(client, messageId);
  } finally {
    await client.logout().catch(() => client.close());
  }
}
