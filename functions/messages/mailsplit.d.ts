/**
 * The part of mailsplit's API that mime-rewriter.ts uses. mailsplit ships no type declarations.
 */
declare module 'mailsplit' {
  import type { Readable, Transform, Writable } from 'node:stream';

  export interface MimeHeaders {
    getFirst(key: string): string;
    getList(): Array<{ key: string; line: string }>;
    update(key: string, value: string): void;
    add(key: string, value: string): void;
    remove(key: string): void;
  }

  export interface MimeNode {
    type: 'node';
    root: boolean;
    multipart: string | false;
    contentType: string | false;
    charset: string | false;
    disposition: string | false;
    filename: string | false;
    headers: MimeHeaders;
    getHeaders(): Buffer;
    setCharset(charset: string): void;
  }

  /** What a Splitter emits: nodes (with their headers), then their encoded body chunks. */
  export type MimeChunk = MimeNode | { type: 'body'; node: MimeNode; value: Buffer } | { type: 'data'; value: Buffer };

  export class Splitter extends Transform {}
  export class Joiner extends Transform {}
  export class Rewriter extends Transform {
    constructor(filter: (node: MimeNode) => boolean);
    on(event: 'node', listener: (part: { node: MimeNode; decoder: Readable; encoder: Writable }) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
