import { findCopy } from '../../functions/optimize/inbox/imap-search';
import { withEnv } from '../../functions/platform/env';
import { startSeedImap, type SeedImap } from '../support/seed-imap';

// Where a poll finds a copy in a Gmail seed (a real IMAP server, hoodiecrow, shaped as Gmail:
// INBOX, [Gmail]/All Mail, [Gmail]/Spam): a copy in INBOX is in All Mail too, so All Mail alone
// means archived, unless the copy arrived while the poll was between the two searches.
let seed: SeedImap;
beforeAll(async () => {
  seed = await startSeedImap('ann@gmail.seed.test', undefined, { gmail: true });
});
afterAll(() => seed?.close());

const copy = (id: string) => `Message-ID: <${id}@example.com>\r\nFrom: a@example.com\r\nTo: ann@gmail.seed.test\r\nSubject: Hi\r\n\r\nHello\r\n`;
const search = (id: string) =>
  withEnv({ TABLE_NAME: 't', WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' }, () =>
    findCopy({ email: seed.email, provider: 'gmail.com', host: '127.0.0.1', port: seed.port, secure: false, user: seed.user, auth: 'password', secret: seed.password }, `<${id}@example.com>`),
  );

test('a copy only in All Mail was archived: found there, as inbox', async () => {
  seed.fileOnly('[Gmail]/All Mail', copy('archived'));
  expect(await search('archived')).toMatchObject({ destination: 'inbox', folder: '[Gmail]/All Mail' });
});

test('a copy that reaches INBOX while the poll is between INBOX and All Mail is found in INBOX', async () => {
  // The moment of a delivery the poll met: in All Mail already, in INBOX once the search has begun.
  seed.fileOnly('[Gmail]/All Mail', copy('arriving'));
  seed.onFirstHeaderSearch(() => seed.fileOnly('INBOX', copy('arriving')));
  expect(await search('arriving')).toMatchObject({ destination: 'inbox', folder: 'INBOX' });
});
