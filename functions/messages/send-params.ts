import { detectMimeType } from 'nodemailer/lib/mime-funcs/mime-types';
import { parseDateInput } from '../platform/dates';
import { BadRequest } from '../platform/errors';
import type { UploadedFile } from '../platform/http/body';

/**
 * The send parameters of contract §2.1, read from the merged form. Keys with prefixes (h:, v:,
 * o:, t:) are open-ended, so this reads the form directly rather than through a fixed schema.
 */
export interface SendParams {
  from?: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject?: string;
  text?: string;
  html?: string;
  ampHtml?: string;
  tags: string[];
  testMode: boolean;
  headers: Array<[string, string]>;
  variables: Record<string, string>;
  attachments: UploadedFile[];
  inline: UploadedFile[];
  /** o:tracking, o:tracking-clicks (also htmlonly), o:tracking-opens: override the domain's settings. */
  tracking: { tracking?: boolean; clicks?: boolean | 'htmlonly'; opens?: boolean };
  /** o:deliverytime, when in the future: the message waits until then. */
  deliverAt?: Date;
  /** o:require-tls: when given, overrides the domain's require_tls. */
  requireTls?: boolean;
  /** o:sending-ip, o:sending-ip-pool: a dedicated IP or DIPP for this message (functions/sending-ips/sending-options.ts). */
  sendingIp?: string;
  sendingIpPool?: string;
}

/** How far ahead o:deliverytime may be, as Mailgun allows. */
export const MAX_SCHEDULE_MS = 3 * 86_400_000;

function deliveryTime(raw: unknown, now = Date.now()): Date | undefined {
  const text = last(raw)?.trim();
  if (!text) return undefined;
  const at = parseDateInput(text);
  if (!at) throw new BadRequest("Invalid parameter 'o:deliverytime': expected an RFC 2822 date");
  if (at.getTime() - now > MAX_SCHEDULE_MS) throw new BadRequest("'o:deliverytime' may be at most 3 days ahead");
  return at.getTime() > now ? at : undefined;
}

const OPTIONS_LIMIT_BYTES = 16 * 1024;
const MAX_TAGS = 3;
const MAX_TAG_LENGTH = 128;

const all = (value: unknown): string[] => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String));
const last = (value: unknown): string | undefined => all(value).at(-1);
/** GO always sends subject and text, possibly empty: empty means absent. */
const present = (value: unknown): string | undefined => {
  const v = last(value);
  return v === undefined || v === '' ? undefined : v;
};

export function yesNo(name: string, value: unknown): boolean | undefined {
  const v = last(value)?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (v === 'yes' || v === 'true') return true;
  if (v === 'no' || v === 'false') return false;
  throw new BadRequest(`Invalid parameter '${name}': must be one of yes, no, true or false`);
}

/** Options not built yet are refused rather than silently ignored. */
const NOT_YET = ['o:deliver-within', 'o:deliverytime-optimize-period', 'o:time-zone-localize'];

/** SDKs often send files untyped; like Mailgun, infer the type from the file name then. */
function withContentType(file: UploadedFile): UploadedFile {
  if (file.contentType !== 'application/octet-stream') return file;
  return { ...file, contentType: detectMimeType(file.filename) };
}

export function readSendParams(params: Record<string, unknown>, files: UploadedFile[]): SendParams {
  let optionsBytes = 0;
  const headers: Array<[string, string]> = [];
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (!/^[ohvt]:/.test(key)) continue;
    for (const v of all(value)) optionsBytes += Buffer.byteLength(key) + Buffer.byteLength(v);
    if (key.startsWith('h:') && key.length > 2) for (const v of all(value)) headers.push([key.slice(2), v]);
    if (key.startsWith('v:') && key.length > 2) variables[key.slice(2)] = last(value)!;
  }
  if (optionsBytes > OPTIONS_LIMIT_BYTES) throw new BadRequest('The o:, h:, v: and t: options together exceed 16KB');
  for (const name of NOT_YET) {
    if (present(params[name]) !== undefined) throw new BadRequest(`'${name}' is not available on this server yet`);
  }
  // Checked so a typo is refused, though SES cannot honour them per message (docs/sending.md, "Not yet").
  yesNo('o:dkim', params['o:dkim']);
  yesNo('o:skip-verification', params['o:skip-verification']);
  const tags = all(params['o:tag']).map((t) => t.trim()).filter(Boolean);
  if (tags.length > MAX_TAGS) throw new BadRequest(`A message can carry at most ${MAX_TAGS} tags`);
  if (tags.some((t) => t.length > MAX_TAG_LENGTH)) throw new BadRequest(`Tags are at most ${MAX_TAG_LENGTH} characters`);
  return {
    from: present(params['from']),
    to: all(params['to']),
    cc: all(params['cc']),
    bcc: all(params['bcc']),
    subject: last(params['subject']),
    text: present(params['text']),
    html: present(params['html']),
    ampHtml: present(params['amp-html']),
    tags,
    testMode: yesNo('o:testmode', params['o:testmode']) ?? false,
    headers,
    variables,
    deliverAt: deliveryTime(params['o:deliverytime']),
    requireTls: yesNo('o:require-tls', params['o:require-tls']),
    sendingIp: present(params['o:sending-ip'])?.trim(),
    sendingIpPool: present(params['o:sending-ip-pool'])?.trim(),
    tracking: {
      tracking: yesNo('o:tracking', params['o:tracking']),
      clicks: last(params['o:tracking-clicks'])?.trim().toLowerCase() === 'htmlonly' ? 'htmlonly' : yesNo('o:tracking-clicks', params['o:tracking-clicks']),
      opens: yesNo('o:tracking-opens', params['o:tracking-opens']),
    },
    attachments: files.filter((f) => f.field === 'attachment').map(withContentType),
    inline: files.filter((f) => f.field === 'inline').map(withContentType),
  };
}
