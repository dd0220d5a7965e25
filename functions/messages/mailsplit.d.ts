/**
 * The part of mailsplit's API that mime-rewriter.ts uses. mailsplit ships no type declarations.
 */
declare module 'mailsplit' {
  import type { Readable, Transform, Writable } from 'node:stream';

  export interface MimeNode {
    type: 'node';
    root: boolean;
    contentType: string | false;
    charset: string | false;
    disposition: string | false;
    setCharset(charset: string): void;
  }

  export class Splitter extends Transform {}
  export class Joiner extends Transform {}
  export class Rewriter extends Transform {
    constructor(filter: (node: MimeNode) => boolean);
    on(event: 'node', listener: (part: { node: MimeNode; decoder: Readable; encoder: Writable }) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
