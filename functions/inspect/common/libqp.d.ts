/** libqp ships no types; only the decoder is used (inspect-input.ts). */
declare module 'libqp' {
  export function decode(input: string | Buffer): Buffer;
}
