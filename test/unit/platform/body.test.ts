import { parseBody, parseQuery } from '../../../functions/platform/http/body';

function multipart(boundary: string, parts: Array<{ name: string; value: string; filename?: string; type?: string }>): Buffer {
  const lines = parts.flatMap((p) => [
    `--${boundary}`,
    `Content-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`,
    ...(p.type ? [`Content-Type: ${p.type}`] : []),
    '',
    p.value,
  ]);
  return Buffer.from([...lines, `--${boundary}--`, ''].join('\r\n'));
}

describe('multipart/form-data', () => {
  it('keeps repeated fields as arrays and files apart', async () => {
    const body = multipart('b1', [
      { name: 'to', value: 'a@example.com' },
      { name: 'to', value: 'b@example.com' },
      { name: 'o:tag', value: 'x' },
      { name: 'attachment', value: 'hello', filename: 'hi.txt', type: 'text/plain' },
    ]);
    const parsed = await parseBody(body, 'multipart/form-data; boundary=b1');
    expect(parsed.fields).toEqual({ to: ['a@example.com', 'b@example.com'], 'o:tag': 'x' });
    expect(parsed.files).toEqual([{ field: 'attachment', filename: 'hi.txt', contentType: 'text/plain', content: Buffer.from('hello') }]);
  });

  it.each([
    ['quoted, with legal punctuation', '"----=_Part_0.1+2(3)"', "----=_Part_0.1+2(3)"],
    ['form-data package style', '--------------------------123456789012345678901234', '--------------------------123456789012345678901234'],
    ['70 characters', 'a'.repeat(70), 'a'.repeat(70)],
  ])('accepts a %s boundary', async (_, header, boundary) => {
    const parsed = await parseBody(multipart(boundary, [{ name: 'name', value: 'x.example.com' }]), `multipart/form-data; boundary=${header}`);
    expect(parsed.fields).toEqual({ name: 'x.example.com' });
  });

  it('keeps UTF-8 field values intact', async () => {
    const parsed = await parseBody(multipart('u', [{ name: 'subject', value: 'Grüße ✉' }]), 'multipart/form-data; boundary=u');
    expect(parsed.fields.subject).toBe('Grüße ✉');
  });

  it('refuses a missing boundary with a 400', async () => {
    await expect(parseBody(Buffer.from('x'), 'multipart/form-data')).rejects.toMatchObject({ status: 400 });
  });
});

describe('indexed field names (PHP clients: Symfony Mailer, Guzzle)', () => {
  it('reads attachment[N] and inline[N] as the repeated files, in index order', async () => {
    const body = multipart('8NobJOS_', [
      { name: 'from', value: 'me@example.com' },
      { name: 'attachment[1]', value: 'second', filename: 'b.pdf', type: 'application/pdf' },
      { name: 'inline[0]', value: 'png', filename: 'logo.png', type: 'image/png' },
      { name: 'attachment[0]', value: 'first', filename: 'a.csv', type: 'text/csv' },
    ]);
    const parsed = await parseBody(body, 'multipart/form-data; boundary=8NobJOS_');
    expect(parsed.files.map((f) => [f.field, f.filename, f.contentType])).toEqual([
      ['attachment', 'a.csv', 'text/csv'],
      ['attachment', 'b.pdf', 'application/pdf'],
      ['inline', 'logo.png', 'image/png'],
    ]);
    expect(parsed.fields).toEqual({ from: 'me@example.com' });
  });

  it('reads indexed fields as the repeated field, indexes compared as numbers, plain ones first', async () => {
    const body = multipart('b', [
      { name: 'o:tag[10]', value: 'k' },
      { name: 'o:tag[2]', value: 'c' },
      { name: 'o:tag', value: 'plain' },
      { name: 'to[0]', value: 'a@example.com' },
    ]);
    expect((await parseBody(body, 'multipart/form-data; boundary=b')).fields).toEqual({ 'o:tag': ['plain', 'c', 'k'], to: 'a@example.com' });
    expect(parseQuery('to%5B1%5D=b%40example.com&to%5B0%5D=a%40example.com&name=x')).toEqual({ to: ['a@example.com', 'b@example.com'], name: 'x' });
  });

  it('leaves names whose brackets hold no index alone', async () => {
    expect(parseQuery('v:data[key]=1&a[]=2&b[0x]=3')).toEqual({ 'v:data[key]': '1', 'a[]': '2', 'b[0x]': '3' });
  });

  it.each([
    ['as UTF-8 in filename (WHATWG, Symfony Mailer, browsers)', 'filename="Reçu n°42.pdf"'],
    ["as RFC 5987 filename*", "filename*=utf-8''Re%C3%A7u%20n%C2%B042.pdf"],
  ])('keeps a non-ASCII file name given %s', async (_, parameter) => {
    const body = Buffer.from(
      ['--x', `Content-Disposition: form-data; name="attachment[0]"; ${parameter}`, 'Content-Type: application/pdf', '', '%PDF', '--x--', ''].join('\r\n'),
    );
    const [file] = (await parseBody(body, 'multipart/form-data; boundary=x')).files;
    expect(file).toMatchObject({ field: 'attachment', filename: 'Reçu n°42.pdf', contentType: 'application/pdf' });
  });
});

describe('a multipart body cut off (client gone mid-upload, or malformed)', () => {
  const whole = multipart('cut', [
    { name: 'from', value: 'me@example.com' },
    { name: 'attachment', value: 'first file, complete', filename: 'one.txt', type: 'text/plain' },
    { name: 'attachment', value: 'second file, which the client never finished sending', filename: 'two.txt', type: 'text/plain' },
  ]).toString('latin1');
  const cutAfter = (marker: string) => Buffer.from(whole.slice(0, whole.indexOf(marker) + marker.length), 'latin1');

  it.each([
    ['inside a field', cutAfter('me@exa')],
    ['inside the part headers', cutAfter('Content-Disposition: form-da')],
    ['inside a file part', cutAfter('never fin')],
    ['at the end of a file part, before its boundary', cutAfter('finished sending')],
    ['before the closing boundary', Buffer.from(whole.slice(0, whole.lastIndexOf('--cut--')), 'latin1')],
    ['with the closing boundary missing its dashes', Buffer.from(whole.replace('--cut--', '--cut'), 'latin1')],
  ])('refuses a body cut off %s with a 400, once, and nothing escapes', async (_, body) => {
    const escaped: unknown[] = [];
    const listener = (error: unknown) => escaped.push(error);
    process.on('uncaughtException', listener);
    try {
      await expect(parseBody(body, 'multipart/form-data; boundary=cut')).rejects.toMatchObject({ status: 400, message: 'Malformed multipart/form-data body' });
      // busboy errors the file stream a tick after the parser: give it the chance to escape.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', listener);
    }
    expect(escaped).toEqual([]);
  });

  it('still reads the whole body the cut ones came from', async () => {
    const parsed = await parseBody(Buffer.from(whole, 'latin1'), 'multipart/form-data; boundary=cut');
    expect(parsed.files.map((f) => f.filename)).toEqual(['one.txt', 'two.txt']);
  });

  it('refuses a file or field over the part limit with a 413 rather than keeping it cut short', async () => {
    const limits = { bodyBytes: 10_000, partBytes: 16 };
    const file = multipart('lim', [{ name: 'attachment', value: 'x'.repeat(100), filename: 'big.bin' }]);
    const field = multipart('lim', [{ name: 'text', value: 'x'.repeat(100) }]);
    await expect(parseBody(file, 'multipart/form-data; boundary=lim', limits)).rejects.toMatchObject({ status: 413 });
    await expect(parseBody(field, 'multipart/form-data; boundary=lim', limits)).rejects.toMatchObject({ status: 413 });
    const small = await parseBody(multipart('lim', [{ name: 'attachment', value: 'tiny', filename: 't.bin' }]), 'multipart/form-data; boundary=lim', limits);
    expect(small.files[0]!.content.toString()).toBe('tiny');
  });
});

describe('urlencoded and JSON', () => {
  it('reads urlencoded with repeated keys', async () => {
    const parsed = await parseBody(Buffer.from('to=a%40x.com&to=b%40x.com&subject=Hi+there'), 'application/x-www-form-urlencoded');
    expect(parsed.fields).toEqual({ to: ['a@x.com', 'b@x.com'], subject: 'Hi there' });
  });

  it('reads a JSON string sent under the urlencoded type (mailgun.js DELETE /v1/analytics/tags)', async () => {
    const parsed = await parseBody(Buffer.from('{"tag":"newsletter"}'), 'application/x-www-form-urlencoded');
    expect(parsed.fields).toEqual({ tag: 'newsletter' });
  });

  it('keeps a JSON array body as the document, with no fields', async () => {
    const parsed = await parseBody(Buffer.from('[{"address":"a@x.com"}]'), 'application/json; charset=utf-8');
    expect(parsed).toEqual({ fields: {}, files: [], json: [{ address: 'a@x.com' }] });
  });

  it('refuses malformed JSON with a 400', async () => {
    await expect(parseBody(Buffer.from('{nope'), 'application/json')).rejects.toMatchObject({ status: 400, message: 'Malformed JSON body' });
  });

  it('parses queries with repeated keys', () => {
    expect(parseQuery('event=a&event=b&limit=10')).toEqual({ event: ['a', 'b'], limit: '10' });
  });
});
