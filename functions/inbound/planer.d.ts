/**
 * The part of planer's API that reply-stripping.ts uses. planer (Lever's port of Mailgun's talon
 * quotation rules) ships no type declarations.
 */
declare module 'planer' {
  export function extractFromPlain(body: string): string;
}
