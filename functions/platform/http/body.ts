import type busboyParser from 'busboy';
import { BadRequest, PayloadTooLarge } from '../errors';

export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

export type ParamValue = string | string[];

export interface ParsedBody {
  /** Form fields, repeated keys kept as arrays; or a JSON object's top-level members. */
  fields: Record<string, unknown>;
  files: UploadedFile[];
  /** The parsed JSON document, when the body was JSON (it may be an array). */
  json?: unknown;
}

const MAX_BODY_BYTES = 52 * 1024 * 1024;

export interface BodyLimits {
  /** The whole body. */
  bodyBytes: number;
  /** One field or file of a multipart body. */
  partBytes: number;
}

const DEFAULT_LIMITS: BodyLimits = { bodyBytes: MAX_BODY_BYTES, partBytes: MAX_BODY_BYTES };

function appendParam(target: Record<string, unknown>, key: string, value: string): void {
  const existing = target[key];
  if (existing === undefined) target[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else target[key] = [existing as string, value];
}

const INDEXED_NAME = /^(.+)\[(\d+)\]$/;

/**
 * PHP's clients send a repeated field as `name[0]`, `name[1]`, ... (Symfony Mailer's Mailgun
 * transport, which Laravel's `mailgun` driver uses, for `attachment` and `inline`; Guzzle's and
 * http_build_query's form encoding for any list), and Mailgun reads them as the repeated field
 * `name`. Parts are renamed so and put in index order among the parts of that name, which keep the
 * place of the first one; plain `name` parts come before indexed ones.
 */
function foldIndexedNames<T extends { field: string }>(parts: T[]): T[] {
  const firstAt = new Map<string, number>();
  const entries = parts.map((part, at) => {
    const indexed = INDEXED_NAME.exec(part.field);
    const field = indexed ? indexed[1]! : part.field;
    if (!firstAt.has(field)) firstAt.set(field, at);
    return { part: indexed ? { ...part, field } : part, group: firstAt.get(field)!, index: indexed ? Number(indexed[2]) : -1, at };
  });
  entries.sort((a, b) => a.group - b.group || a.index - b.index || a.at - b.at);
  return entries.map((entry) => entry.part);
}

function fieldsOf(pairs: Array<{ field: string; value: string }>): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const { field, value } of foldIndexedNames(pairs)) appendParam(out, field, value);
  return out;
}

export function parseQuery(raw: string): Record<string, ParamValue> {
  return fieldsOf([...new URLSearchParams(raw)].map(([field, value]) => ({ field, value })));
}

function parseJson(text: string): ParsedBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BadRequest('Malformed JSON body');
  }
  const fields = json && typeof json === 'object' && !Array.isArray(json) ? { ...(json as Record<string, unknown>) } : {};
  return { fields, files: [], json };
}

/**
 * busboy reports a cut-off or malformed body as an `error` on the parser *and* on the file stream
 * it was filling; an unheard stream error kills the process, so every stream gets a listener, and
 * the promise settles once: the first error wins and nothing resolves after it.
 */
function parseMultipart(body: Buffer, contentType: string, partBytes: number): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const fields: Array<{ field: string; value: string }> = [];
    const files: UploadedFile[] = [];
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const malformed = () => fail(new BadRequest('Malformed multipart/form-data body'));
    // Loaded on the first multipart body: most requests have none (multipart-parser.ts).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
    const { busboy } = require('./multipart-parser') as { busboy: typeof busboyParser };
    let parser: busboyParser.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fieldSize: partBytes, fileSize: partBytes },
      });
    } catch {
      fail(new BadRequest('Malformed multipart/form-data body: missing or invalid boundary'));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new PayloadTooLarge());
      else fields.push({ field: name, value });
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('error', malformed);
      // A file over the limit is cut short by busboy, not refused: refuse it here.
      stream.on('limit', () => fail(new PayloadTooLarge()));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () =>
        files.push({
          field: name,
          filename: info.filename ?? name,
          contentType: info.mimeType || 'application/octet-stream',
          content: Buffer.concat(chunks),
        }),
      );
    });
    parser.on('error', malformed);
    // 'close' follows an error too; only a parse that finished cleanly resolves.
    parser.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve({ fields: fieldsOf(fields), files: foldIndexedNames(files) });
    });
    parser.on('close', () => {
      if (!settled) malformed();
    });
    parser.end(body);
  });
}

/**
 * Reads any of the encodings the official SDKs send. An unknown content type contributes no
 * parameters rather than failing: several SDK calls send an empty body with a default type.
 * Tests lower `limits` to reach the per-part limit without building 52 MB bodies.
 */
export async function parseBody(body: Buffer, contentTypeHeader: string | undefined, limits: BodyLimits = DEFAULT_LIMITS): Promise<ParsedBody> {
  if (body.length > limits.bodyBytes) throw new PayloadTooLarge();
  if (body.length === 0) return { fields: {}, files: [] };
  const contentType = (contentTypeHeader ?? '').toLowerCase();
  const text = () => body.toString('utf8');
  if (contentType.startsWith('multipart/form-data')) return parseMultipart(body, contentTypeHeader ?? '', limits.partBytes);
  if (contentType.includes('json')) return parseJson(text());
  if (contentType.startsWith('application/x-www-form-urlencoded') || contentType === '') {
    const trimmed = text().trimStart();
    // mailgun.js sends DELETE /v1/analytics/tags as a JSON string under the urlencoded type.
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return parseJson(trimmed);
    return { fields: parseQuery(text()), files: [] };
  }
  return { fields: {}, files: [] };
}
