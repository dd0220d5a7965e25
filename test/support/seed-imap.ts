import type { AddressInfo } from 'node:net';
import hoodiecrow from 'hoodiecrow-imap';
import { ImapFlow } from 'imapflow';

/**
 * Seed mailboxes on this machine: one hoodiecrow IMAP server per mailbox (hoodiecrow serves one
 * user's storage per server), with INBOX and a special-use `\Junk` folder as a provider's mailbox
 * has. Mail is placed in a folder by IMAP APPEND, as the provider's filter would file it.
 */
export interface SeedImap {
  email: string;
  user: string;
  password: string;
  port: number;
  /** Files a message in INBOX or Junk. */
  deliver(folder: 'INBOX' | 'Junk', raw: string | Buffer): Promise<void>;
  close(): Promise<void>;
}

export async function startSeedImap(email: string, password = 'seed-app-password'): Promise<SeedImap> {
  const user = email;
  const server = hoodiecrow({
    plugins: ['ID', 'ENABLE', 'SPECIAL-USE', 'UNSELECT', 'IDLE'],
    users: { [user]: { password } },
    storage: { INBOX: { messages: [] }, '': { separator: '/', folders: { Junk: { 'special-use': '\\Junk', messages: [] } } } },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    email,
    user,
    password,
    port,
    async deliver(folder, raw) {
      const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false });
      await client.connect();
      try {
        await client.append(folder, raw);
      } finally {
        await client.logout();
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
