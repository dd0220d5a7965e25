import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { rewriteMime } from '../../../functions/messages/mime-rewriter';

const compose = (options: ConstructorParameters<typeof MailComposer>[0]) => new MailComposer(options).compile().build();
const upper = async (_kind: string, body: string) => body.toUpperCase();

it('rewrites the inline bodies it is asked for and leaves attachments and other parts as they were', async () => {
  const raw = await compose({
    from: 'a@example.com',
    to: 'b@example.com',
    subject: 'Mixed',
    text: 'plain body',
    html: '<p>html body</p>',
    attachments: [
      { filename: 'notes.txt', content: 'attached text' },
      { filename: 'page.html', content: '<p>attached html</p>', contentType: 'text/html' },
    ],
  });
  const parsed = await simpleParser(await rewriteMime(raw, { kinds: new Set(['html']), body: upper }));
  expect(String(parsed.html).trim()).toBe('<P>HTML BODY</P>');
  expect(parsed.text).toBe('plain body');
  expect(parsed.attachments.map((a) => a.content.toString())).toEqual(['attached text', '<p>attached html</p>']);
  expect(parsed.subject).toBe('Mixed');
});

it('reads a body in its own charset and writes it back as UTF-8', async () => {
  const latin1 = Buffer.concat([
    Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: Latin\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n'),
    Buffer.from('caf\u00e9 cr\u00e8me\r\n', 'latin1'),
  ]);
  const seen: string[] = [];
  const rewritten = await rewriteMime(latin1, {
    kinds: new Set(['text']),
    body: async (_kind, body) => {
      seen.push(body);
      return `${body.trim()} \u2713`;
    },
  });
  expect(seen).toEqual(['caf\u00e9 cr\u00e8me\r\n']);
  const parsed = await simpleParser(rewritten);
  expect(parsed.text?.trim()).toBe('caf\u00e9 cr\u00e8me \u2713');
  expect(rewritten.toString()).toMatch(/charset=utf-8/i);
});

it('answers a message without text bodies unchanged', async () => {
  const raw = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: Image\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n');
  expect((await rewriteMime(raw, { kinds: new Set(['html', 'text']), body: upper })).toString()).toBe(raw.toString());
});
