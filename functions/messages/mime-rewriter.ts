/**
 * Rewrites the text bodies of a MIME message in place, keeping everything else (structure,
 * headers, attachments, their encodings) byte for byte: mailsplit splits the message into nodes,
 * hands over each chosen body decoded, and joins the result. In the messages Lambda this is a
 * bundle of its own beside index.js (lib/side-bundles.ts), since only tracked MIME sends need it.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Joiner, Rewriter, Splitter, type MimeNode } from 'mailsplit';

export type TextKind = 'html' | 'text';

/** Which inline body a node is, if it is one to rewrite: attachments never are. */
function kindOf(node: MimeNode): TextKind | undefined {
  if (node.disposition === 'attachment') return undefined;
  if (node.contentType === 'text/html') return 'html';
  if (node.contentType === 'text/plain') return 'text';
  return undefined;
}

/** A body's text in its declared charset; one Node cannot decode is read as Latin-1, byte for byte. */
function decodeText(bytes: Buffer, charset: string | false): string {
  try {
    return new TextDecoder(charset || 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Runs `rewrite` on every inline text/html and text/plain body `kinds` names, and answers the
 * message with those bodies replaced (re-encoded as UTF-8, in their transfer encoding, or
 * quoted-printable where they had none).
 */
export async function rewriteTextParts(raw: Buffer, kinds: ReadonlySet<TextKind>, rewrite: (kind: TextKind, body: string) => Promise<string>): Promise<Buffer> {
  const rewriter = new Rewriter((node) => {
    const kind = kindOf(node);
    return kind !== undefined && kinds.has(kind);
  });
  rewriter.on('node', ({ node, decoder, encoder }) => {
    collect(decoder)
      .then(async (bytes) => {
        const body = await rewrite(kindOf(node)!, decodeText(bytes, node.charset));
        node.setCharset('utf-8');
        encoder.end(Buffer.from(body, 'utf8'));
      })
      .catch((error: Error) => rewriter.destroy(error));
  });
  const out: Buffer[] = [];
  await pipeline(Readable.from([raw]), new Splitter(), rewriter, new Joiner(), async (joined: AsyncIterable<Buffer>) => {
    for await (const chunk of joined) out.push(chunk);
  });
  return Buffer.concat(out);
}
