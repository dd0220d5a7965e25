import { BadRequest } from '../../platform/errors';

/**
 * The links list's opaque `page` tokens, shaped as Mailgun's decode (contract §0): base64 JSON
 * `{"s":0,"b":"<boundary id>","p":<reverse>}`; first `{"s":0,"p":false}`, last `{"s":0,"p":true}`.
 */
export interface LinkPageToken {
  s: number;
  b?: string;
  p: boolean;
}

export function linkPageToken(token: LinkPageToken): string {
  const { s, b, p } = token;
  return Buffer.from(JSON.stringify(b ? { s, b, p } : { s, p })).toString('base64');
}

export function readLinkPageToken(page: string): LinkPageToken {
  try {
    const value = JSON.parse(Buffer.from(page, 'base64').toString('utf8')) as Partial<LinkPageToken>;
    if (typeof value !== 'object' || value === null) throw new Error('not an object');
    const b = typeof value.b === 'string' && /^[0-9a-f]{24}$/.test(value.b) ? value.b : undefined;
    return { s: Number(value.s) || 0, b, p: value.p === true };
  } catch {
    throw new BadRequest("Invalid parameter 'page': use the page URLs of an earlier reply");
  }
}
