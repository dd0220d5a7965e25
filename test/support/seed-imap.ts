import type { AddressInfo } from 'node:net';
import hoodiecrow from 'hoodiecrow-imap';

/**
 * Seed mailboxes on this machine: one hoodiecrow IMAP server per mailbox (hoodiecrow serves one
 * user's storage per server), with INBOX and a special-use `\Junk` folder as a provider's mailbox
 * has. Mail is filed in a folder as the provider's filter would, straight into the server's store:
 * a copy Gmail shows in two folders is in both at once, so a poll never finds it in only one.
 *
 * `gmail: true` shapes it as Gmail's IMAP: `X-GM-EXT-1`, `[Gmail]/All Mail` (`\All`) and
 * `[Gmail]/Spam` (`\Junk`), and an `X-GM-RAW` search that knows the two terms placement asks
 * (`rfc822msgid:` and `category:`). Hoodiecrow has no X-GM-RAW; the tab of each message is the one
 * the test files it under, as Gmail's classifier would have chosen.
 */
export interface SeedImap {
  email: string;
  user: string;
  password: string;
  port: number;
  /** The folder Junk mail is in: `Junk`, or `[Gmail]/Spam`. */
  junk: string;
  /** Files a message in a folder; on Gmail, under a tab. */
  deliver(folder: string, raw: string | Buffer, gmailCategory?: string): Promise<void>;
  /** Files `raw` in one folder alone (a moment of a delivery, or a message archived on Gmail). */
  fileOnly(folder: string, raw: string): void;
  /** Runs `hook` once, when a header search (a poll's search by Message-ID) first looks at a message. */
  onFirstHeaderSearch(hook: () => void): void;
  close(): Promise<void>;
}

const headerValue = (raw: string, name: string) => new RegExp(`^${name}:[ \\t]*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im').exec(raw)?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim();

/**
 * `oauth2Token`: the mailbox also takes XOAUTH2 (SASL-IR) with this access token, as Gmail and
 * Outlook.com do; a seed configured with the token alone can then only sign in that way.
 */
export async function startSeedImap(email: string, password = 'seed-app-password', options: { gmail?: boolean; oauth2Token?: string } = {}): Promise<SeedImap> {
  const user = email;
  const gmail = options.gmail ?? false;
  const server = hoodiecrow({
    plugins: ['ID', 'ENABLE', 'SPECIAL-USE', 'UNSELECT', 'IDLE', ...(gmail ? ['X-GM-EXT-1'] : []), ...(options.oauth2Token ? ['SASL-IR', 'XOAUTH2'] : [])],
    users: { [user]: { password, ...(options.oauth2Token ? { xoauth2: { accessToken: options.oauth2Token } } : {}) } },
    storage: gmail
      ? { INBOX: { messages: [] }, '': { separator: '/', folders: { '[Gmail]': { flags: ['\\Noselect'], folders: { 'All Mail': { 'special-use': '\\All', messages: [] }, Spam: { 'special-use': '\\Junk', messages: [] } } } } } }
      : { INBOX: { messages: [] }, '': { separator: '/', folders: { Junk: { 'special-use': '\\Junk', messages: [] } } } },
  });
  const categories = new Map<string, string>();
  if (gmail) {
    // Hoodiecrow's plugin adds Gmail's fetch and store keys but does not announce the extension.
    server.registerCapability('X-GM-EXT-1');
    server.searchHandlers['X-GM-RAW'] = (_connection, message, _sequence, query) => {
      const raw = message.raw.toString();
      return query.split(/\s+/).every((term) => {
        const [key, value = ''] = term.split(/:(.*)/s);
        const messageId = headerValue(raw, 'Message-ID')?.replace(/^<|>$/g, '');
        if (key === 'rfc822msgid') return messageId === value.replace(/^<|>$/g, '');
        if (key === 'category') return categories.get(messageId ?? '') === value;
        return false;
      });
    };
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    email,
    user,
    password,
    port,
    junk: gmail ? '[Gmail]/Spam' : 'Junk',
    async deliver(folder, raw, gmailCategory) {
      const messageId = headerValue(raw.toString(), 'Message-ID')?.replace(/^<|>$/g, '');
      if (gmailCategory && messageId) categories.set(messageId, gmailCategory);
      // As hoodiecrow's APPEND stores a literal: its bytes as a binary string.
      const text = typeof raw === 'string' ? raw : raw.toString('binary');
      server.appendMessage(folder, [], new Date(), text);
      // Gmail shows every message but spam and trash in All Mail too.
      if (gmail && folder === 'INBOX') server.appendMessage('[Gmail]/All Mail', [], new Date(), text);
    },
    fileOnly(folder, raw) {
      server.appendMessage(folder, [], new Date(), raw);
    },
    onFirstHeaderSearch(hook) {
      let pending: (() => void) | undefined = hook;
      // The same match as hoodiecrow's own HEADER key (a case-insensitive substring of the field), with the hook ahead of it.
      server.searchHandlers['HEADER'] = (_connection, message, _sequence, field, value) => {
        const run = pending;
        pending = undefined;
        run?.();
        return (headerValue(message.raw.toString(), String(field)) ?? '').toLowerCase().includes(String(value).toLowerCase());
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
