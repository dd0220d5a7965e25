import type { ProfileName } from '../clients';
import type { CssQuirks } from './css-filter';

/**
 * What each client family does to an email beyond caniemail's per-feature verdicts: the documented
 * quirks of inspect contract §6.6 (Gmail's style rules and clipping, Outlook's Word engine, the
 * webmails' class prefixes and body-style stripping). caniemail removes what a client does not
 * support; these say how the client treats what is left.
 */
export interface ClientProfile {
  css: CssQuirks;
  /** `<style>` elements inside `<body>` are removed. */
  dropBodyStyles: boolean;
  /** A head `<style>` block over this many characters, or one that does not parse, is removed whole (Gmail). */
  styleBlockLimit?: number;
  /** Elements removed with their content whatever caniemail says. */
  dropElements: readonly string[];
  /** Outlook's conditional comments: `[if mso]` content shown, `[if !mso]` content hidden, VML unwrapped. */
  msoConditionals: boolean;
  /** The message is cut after this many bytes, with the client's own marker (Gmail's 102 KB). */
  clipBytes?: number;
  /** How the client's dark mode treats an email (the `_dm` clients). */
  darkMode: 'invert' | 'color-scheme';
}

const GMAIL_DROPPED = ['position', 'visibility', 'box-shadow', 'text-shadow', 'transform', 'animation', 'transition', 'gap', 'filter', 'clip-path', 'backdrop-filter'];
const WORD_ENGINE_DROPPED = ['border-radius', 'box-shadow', 'max-width', 'max-height', 'min-width', 'min-height', 'float', 'position', 'overflow', 'opacity', 'transform', 'background-size', 'background-position', 'object-fit', 'gap'];

const gmail = (): ClientProfile => ({
  css: { dropProperties: new Set(GMAIL_DROPPED), dropAtRules: new Set(['font-face', 'import']) },
  dropBodyStyles: true,
  styleBlockLimit: 16 * 1024,
  dropElements: ['link', 'script', 'form', 'svg'],
  msoConditionals: false,
  clipBytes: 102 * 1024,
  // Gmail's apps invert a light email's colours in dark mode (a "full" inversion).
  darkMode: 'invert',
});

export const PROFILES: Readonly<Record<ProfileName, ClientProfile>> = {
  'gmail-web': gmail(),
  'gmail-app': gmail(),
  'outlook-word': {
    css: { dropProperties: new Set(WORD_ENGINE_DROPPED), flexAsBlock: true },
    dropBodyStyles: false,
    dropElements: ['script'],
    msoConditionals: true,
    darkMode: 'invert',
  },
  'outlook-web': { css: { classPrefix: 'x_' }, dropBodyStyles: true, dropElements: ['script', 'link'], msoConditionals: false, darkMode: 'invert' },
  yahoo: { css: { classPrefix: 'yiv1234567890' }, dropBodyStyles: true, dropElements: ['script', 'link'], msoConditionals: false, darkMode: 'invert' },
  // WebKit: Chromium's Blink forked from it, and Apple Mail applies no rewriting of its own.
  'apple-webkit': { css: {}, dropBodyStyles: false, dropElements: ['script'], msoConditionals: false, darkMode: 'color-scheme' },
  samsung: { css: {}, dropBodyStyles: false, dropElements: ['script'], msoConditionals: false, darkMode: 'invert' },
  'gecko-like': { css: {}, dropBodyStyles: false, dropElements: ['script'], msoConditionals: false, darkMode: 'color-scheme' },
};
