import type { RE2JS } from 're2js';
import { BadRequest } from '../platform/errors';
import { re2js } from '../platform/lazy/lazy-modules';

/**
 * Route filters and actions in Mailgun's syntax (contract §9):
 *
 *   match_recipient("regex")  match_header("name", "regex")  catch_all()
 *   forward("https://..." | "someone@example.com")  store()  store(notify="https://...")  stop()
 *
 * Patterns run on RE2 (re2js, a pure-JS port of RE2): matching time is linear in the input, so no
 * pattern a user saves (`(a+)+$` and friends) can stall inbound processing by backtracking, and the
 * input itself is bounded (MAX_MATCH_INPUT). RE2 accepts Python's `(?P<name>...)`, the spelling
 * Mailgun documents, so named captures work as written there and are usable in actions as `\g<name>`.
 */

/** A pattern's length: far beyond any real route, short enough that RE2's compile stays trivial. */
const MAX_PATTERN_LENGTH = 1000;
/** Header values longer than this are matched on their start only (RFC 5322 folds at 998 anyway). */
const MAX_MATCH_INPUT = 64 * 1024;

export type Filter =
  | { kind: 'recipient'; pattern: RE2JS }
  | { kind: 'header'; header: string; pattern: RE2JS }
  | { kind: 'catch_all' };

export type Action = { kind: 'forward'; destination: string } | { kind: 'store'; notify?: string } | { kind: 'stop' };

/** What a matching filter captured, by group name (and by number), for `\g<name>` in actions. */
export type Captures = Record<string, string>;

/** A quoted argument: `"..."` or `'...'`, a backslash before the quote keeps it; nothing else is unescaped (regexes need their backslashes). */
const QUOTED = String.raw`(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')`;
const RECIPIENT = new RegExp(String.raw`^match_recipient\(\s*${QUOTED}\s*\)$`, 's');
const HEADER = new RegExp(String.raw`^match_header\(\s*${QUOTED}\s*,\s*${QUOTED}\s*\)$`, 's');
const CATCH_ALL = /^catch_all\(\s*\)$/;
const FORWARD = new RegExp(String.raw`^forward\(\s*${QUOTED}\s*\)$`, 's');
const STORE = new RegExp(String.raw`^store\(\s*(?:notify\s*=\s*${QUOTED}\s*)?\)$`, 's');
const STOP = /^stop\(\s*\)$/;

function unquote(double: string | undefined, single: string | undefined): string {
  return double !== undefined ? double.replace(/\\"/g, '"') : single!.replace(/\\'/g, "'");
}

/** Compiles a pattern with RE2, or explains in a 400 why it is not one. */
function compilePattern(source: string): RE2JS {
  if (source.length > MAX_PATTERN_LENGTH) throw new BadRequest(`The regular expression is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    // Addresses and header values are matched case-insensitively, as Mailgun does.
    const { RE2JS: re2 } = re2js();
    return re2.compile(source, re2.CASE_INSENSITIVE | re2.DOTALL);
  } catch (error) {
    throw new BadRequest(`Invalid regular expression ${JSON.stringify(source)}: ${(error as Error).message}`);
  }
}

export function parseFilter(expression: string): Filter {
  const text = expression.trim();
  let m = RECIPIENT.exec(text);
  if (m) return { kind: 'recipient', pattern: compilePattern(unquote(m[1], m[2])) };
  m = HEADER.exec(text);
  if (m) {
    const header = unquote(m[1], m[2]).trim();
    if (!header) throw new BadRequest('match_header needs a header name');
    return { kind: 'header', header: header.toLowerCase(), pattern: compilePattern(unquote(m[3], m[4])) };
  }
  if (CATCH_ALL.test(text)) return { kind: 'catch_all' };
  throw new BadRequest(`Invalid expression ${JSON.stringify(text)}: expected match_recipient("regex"), match_header("header", "regex") or catch_all()`);
}

/**
 * One action. forward's destination is an http(s) URL or an address, with `\g<name>` captures
 * left in place until a message is routed (checkForwardUrl checks what can be checked now).
 */
export function parseAction(action: string): Action {
  const text = action.trim();
  let m = FORWARD.exec(text);
  if (m) {
    const destination = unquote(m[1], m[2]).trim();
    if (!destination) throw new BadRequest('forward() needs a URL or an address');
    if (!isUrl(destination) && !/^[^@\s]+@[^@\s]+$/.test(destination.replace(CAPTURE, 'x'))) {
      throw new BadRequest(`Invalid action ${JSON.stringify(text)}: forward() takes an http(s) URL or an email address`);
    }
    return { kind: 'forward', destination };
  }
  m = STORE.exec(text);
  if (m) {
    const notify = m[1] !== undefined || m[2] !== undefined ? unquote(m[1], m[2]).trim() : undefined;
    if (notify !== undefined && !isUrl(notify)) throw new BadRequest(`Invalid action ${JSON.stringify(text)}: notify must be an http(s) URL`);
    return notify ? { kind: 'store', notify } : { kind: 'store' };
  }
  if (STOP.test(text)) return { kind: 'stop' };
  throw new BadRequest(`Invalid action ${JSON.stringify(text)}: expected forward("..."), store(notify="...") or stop()`);
}

const isUrl = (destination: string) => /^https?:\/\//i.test(destination);

/** `\g<name>` (or `\g<1>`) in an action, replaced by what the filter captured. */
const CAPTURE = /\\g<(\w+)>/g;

export function withCaptures(destination: string, captures: Captures): string {
  return destination.replace(CAPTURE, (_, name: string) => captures[name] ?? '');
}

/** What a message offers filters: its envelope recipient and its headers (lower-case names, every value). */
export interface MatchInput {
  recipient: string;
  headers: ReadonlyArray<readonly [string, string]>;
}

function capturesOf(pattern: RE2JS, input: string): Captures | undefined {
  const matcher = pattern.matcher(input.slice(0, MAX_MATCH_INPUT));
  // Anchored at the start, as Python's re.match, which Mailgun's examples assume (".*@example.com").
  if (!matcher.lookingAt()) return undefined;
  const captures: Captures = {};
  for (let i = 1; i <= matcher.groupCount(); i++) captures[String(i)] = matcher.group(i) ?? '';
  for (const name of Object.keys(pattern.namedGroups())) captures[name] = matcher.group(name) ?? '';
  return captures;
}

/** The captures when the filter matches, else undefined. */
export function matchFilter(filter: Filter, input: MatchInput): Captures | undefined {
  switch (filter.kind) {
    case 'catch_all':
      return {};
    case 'recipient':
      return capturesOf(filter.pattern, input.recipient);
    case 'header':
      for (const [name, value] of input.headers) {
        if (name.toLowerCase() !== filter.header) continue;
        const captures = capturesOf(filter.pattern, value);
        if (captures) return captures;
      }
      return undefined;
  }
}
