/**
 * Rewrites a MIME message without rebuilding it: mailsplit splits it into nodes, hands over each
 * chosen text body decoded, and joins the result, so structure, attachments and their encodings
 * stay byte for byte. In the messages Lambda this is a bundle of its own beside index.js
 * (lib/side-bundles.ts): only tracked, batch and templated MIME sends need it.
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Joiner, Rewriter, Splitter, type MimeChunk, type MimeHeaders, type MimeNode } from 'mailsplit';

export type TextKind = 'html' | 'text';
export type { MimeHeaders };

/** Which inline body a node is, if it is one: attachments never are. */
function kindOf(node: MimeNode): TextKind | undefined {
  if (node.disposition === 'attachment' || node.filename) return undefined;
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

async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface MimeRewrite {
  /** The inline bodies to hand to `body`. */
  kinds: ReadonlySet<TextKind>;
  body: (kind: TextKind, text: string) => Promise<string>;
  /** Changes to the message's own header block (To, Subject, ...). */
  headers?: (headers: MimeHeaders) => void;
}

/**
 * The message with every inline text/html and text/plain body `kinds` names replaced by what
 * `body` makes of it (re-encoded as UTF-8, in its transfer encoding, or quoted-printable where it
 * had none), and its top-level header block changed by `headers`.
 */
export async function rewriteMime(raw: Buffer, rewrite: MimeRewrite): Promise<Buffer> {
  const rootHeaders = new Transform({
    objectMode: true,
    transform(chunk: MimeChunk, _encoding, done) {
      if (chunk.type === 'node' && chunk.root) rewrite.headers?.(chunk.headers);
      done(null, chunk);
    },
  });
  const rewriter = new Rewriter((node) => {
    const kind = kindOf(node);
    return kind !== undefined && rewrite.kinds.has(kind);
  });
  rewriter.on('node', ({ node, decoder, encoder }) => {
    collect(decoder)
      .then(async (bytes) => {
        const text = await rewrite.body(kindOf(node)!, decodeText(bytes, node.charset));
        node.setCharset('utf-8');
        encoder.end(Buffer.from(text, 'utf8'));
      })
      .catch((error: Error) => rewriter.destroy(error));
  });
  const out: Buffer[] = [];
  await pipeline(Readable.from([raw]), new Splitter(), rootHeaders, rewriter, new Joiner(), async (joined: AsyncIterable<Buffer>) => {
    out.push(await collect(joined));
  });
  return Buffer.concat(out);
}

/** What a message is made of besides its text bodies: its header lines, and its other parts as written. */
export interface MimeParts {
  /** The top-level header lines, each `Name: value` as written (folded lines kept). */
  headers: Array<{ key: string; line: string }>;
  /** Every leaf part that is not an inline text body (attachments, inline images), headers and encoded body. */
  others: Buffer[];
}

export async function mimeParts(raw: Buffer): Promise<MimeParts> {
  const parts: MimeParts = { headers: [], others: [] };
  let current: Buffer[] | undefined;
  for await (const chunk of Readable.from([raw]).pipe(new Splitter()) as AsyncIterable<MimeChunk>) {
    if (chunk.type === 'node') {
      if (chunk.root) parts.headers = chunk.headers.getList();
      current = undefined;
      if (!chunk.multipart && kindOf(chunk) === undefined && !chunk.root) {
        current = [chunk.getHeaders()];
        parts.others.push(Buffer.alloc(0));
      }
    } else if (chunk.type === 'body' && current) {
      current.push(chunk.value);
      parts.others[parts.others.length - 1] = Buffer.concat(current);
    }
  }
  return parts;
}
