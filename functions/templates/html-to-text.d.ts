/**
 * The part of html-to-text's API that text-part.ts uses. html-to-text ships no type declarations
 * (it comes with mailparser, which converts HTML-only mail the same way).
 */
declare module 'html-to-text' {
  export interface SelectorDefinition {
    selector: string;
    format?: string;
    options?: Record<string, unknown>;
  }
  export interface HtmlToTextOptions {
    wordwrap?: number | false | null;
    selectors?: SelectorDefinition[];
  }
  export function convert(html: string, options?: HtmlToTextOptions): string;
}
