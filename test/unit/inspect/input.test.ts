import { decodeTransferEncoded, htmlOfInput, MAX_HTML_BYTES } from '../../../functions/inspect/common/inspect-input';
import { ApiError } from '../../../functions/platform/errors';

// The email's HTML is decoded before any check: transfer encoding, then charset; a raw message
// gives its HTML part; more than 5 MiB is refused.
const noFetch = () => Promise.reject(new Error('not fetched'));

describe('decodeTransferEncoded', () => {
  it('undoes base64 and quoted-printable, then reads the bytes in the charset', () => {
    expect(decodeTransferEncoded(Buffer.from('<p>Grüße</p>').toString('base64'), 'base64', 'utf-8')).toBe('<p>Grüße</p>');
    expect(decodeTransferEncoded('<p>Gr=FC=DFe</p>', 'quoted-printable', 'iso-8859-1')).toBe('<p>Grüße</p>');
    expect(decodeTransferEncoded('<p>Gr=C3=BC=C3=9Fe=\r\n!</p>', 'quoted-printable', undefined)).toBe('<p>Grüße!</p>');
    expect(decodeTransferEncoded('<p>plain</p>', undefined, undefined)).toBe('<p>plain</p>');
  });

  it('refuses an unknown encoding or charset, and base64 that is not', () => {
    expect(() => decodeTransferEncoded('x', 'uuencode', undefined)).toThrow(/Unknown transfer_encoding 'uuencode'/);
    expect(() => decodeTransferEncoded('x', '8bit', 'klingon')).toThrow(/Unknown charset 'klingon'/);
    expect(() => decodeTransferEncoded('<p>not base64</p>', 'base64', undefined)).toThrow(/not valid base64/);
  });
});

describe('htmlOfInput', () => {
  it("takes the HTML part of a raw message, decoded", async () => {
    const mime = ['From: a@example.com', 'To: b@example.com', 'Subject: hi', 'MIME-Version: 1.0', 'Content-Type: multipart/alternative; boundary="b"', '', '--b', 'Content-Type: text/plain', '', 'plain', '--b', 'Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: base64', '', Buffer.from('<p>Héllo</p>').toString('base64'), '--b--', ''].join('\r\n');
    expect(await htmlOfInput({ mime }, noFetch)).toBe('<p>Héllo</p>');
    await expect(htmlOfInput({ mime: 'Subject: x\r\n\r\nonly text' }, noFetch)).rejects.toThrow(/no HTML part/);
  });

  it('wants exactly one source, and at most 5 MiB of HTML (413)', async () => {
    await expect(htmlOfInput({}, noFetch)).rejects.toThrow(/one of 'html', 'url' or 'mime'/);
    await expect(htmlOfInput({ html: '<p>', url: 'https://x.example/' }, noFetch)).rejects.toThrow(/only one of/);
    const error = await htmlOfInput({ html: 'a'.repeat(MAX_HTML_BYTES + 1) }, noFetch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(413);
    expect(await htmlOfInput({ url: 'https://x.example/' }, async (url) => `<p>${url}</p>`)).toBe('<p>https://x.example/</p>');
  });
});
