/**
 * Libraries most requests of a Lambda never use, loaded on first use instead of with the handler:
 * Node reads and parses all of a Lambda's index.js at every cold start, used or not. Each is a
 * module of this folder, required here with a literal `require('./<name>')`: in the Lambdas that
 * list it in lib/side-bundles.ts it is a bundle of its own beside index.js (esbuild leaves the
 * require external); in any other bundle esbuild inlines it, and from source (local mode, tests)
 * it is an ordinary module. Each loader is a function of its own, so a bundle that never calls
 * one does not carry its library.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- deferred on purpose, see above */

/** mailparser's simpleParser: reading stored, posted or inspected MIME. */
export function mailparser(): typeof import('./mime-parser') {
  return require('./mime-parser') as typeof import('./mime-parser');
}

/** The handlebars module (the templates' dialect builds its own instance from it). */
export function handlebarsEngine(): typeof import('./handlebars-engine') {
  return require('./handlebars-engine') as typeof import('./handlebars-engine');
}

/** html-to-text's convert: text parts made from HTML (`t:text=yes`, previews' text-only content). */
export function htmlToText(): typeof import('./html-to-text-engine') {
  return require('./html-to-text-engine') as typeof import('./html-to-text-engine');
}

/** re2js: route expressions, compiled when a route is saved or evaluated. */
export function re2js(): typeof import('./re2-engine') {
  return require('./re2-engine') as typeof import('./re2-engine');
}
