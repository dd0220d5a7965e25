import { env } from '../platform/env';
import { trackingOf } from './settings';
import { signClaims, type TrackingClaims } from './tokens';
import type { DomainItem } from '../domains/domain-store';

/** Which tracking a message gets: the domain's settings unless the message's o: options say otherwise. */
export interface TrackingPlan {
  opens: boolean;
  clicks: boolean | 'htmlonly';
  unsubscribeFooter: boolean;
  openAtTop: boolean;
  htmlFooter: string;
  textFooter: string;
}

export interface TrackingOptions {
  tracking?: boolean;
  clicks?: boolean | 'htmlonly';
  opens?: boolean;
}

export function trackingPlan(domain: DomainItem, options: TrackingOptions): TrackingPlan {
  const settings = trackingOf(domain);
  return {
    opens: options.opens ?? options.tracking ?? settings.open.active,
    clicks: options.clicks ?? options.tracking ?? settings.click.active,
    unsubscribeFooter: settings.unsubscribe.active,
    openAtTop: settings.open.placeAtTheTop,
    htmlFooter: settings.unsubscribe.htmlFooter,
    textFooter: settings.unsubscribe.textFooter,
  };
}

/** The tracking host once its CNAME is verified, else this API's own address. */
export function trackingBase(domain: DomainItem): string | undefined {
  if (domain.dnsChecks?.['tracking']?.valid === 'valid') {
    // Where the tracking host is served on other ports than the scheme's own (local mode).
    const { TRACKING_HTTP_PORT, TRACKING_HTTPS_PORT } = env();
    const [port, standard] = domain.webScheme === 'https' ? [TRACKING_HTTPS_PORT, 443] : [TRACKING_HTTP_PORT, 80];
    return `${domain.webScheme}://${domain.webPrefix}.${domain.name}${port && port !== standard ? `:${port}` : ''}`;
  }
  // On AWS the tracking CNAME target is the API's own host name (custom domain or execute-api).
  const { PUBLIC_API_URL, TRACKING_CNAME_TARGET } = env();
  return PUBLIC_API_URL ?? `https://${TRACKING_CNAME_TARGET}`;
}

const UNSUBSCRIBE_PLACEHOLDERS = /%(?:tag_)?unsubscribe_url%/;

/** Whether a message needs a copy per recipient: each copy's links name its recipient. */
export function needsPerRecipientCopies(plan: TrackingPlan, parts: Array<string | undefined>): boolean {
  return plan.opens || plan.clicks !== false || plan.unsubscribeFooter || parts.some((part) => part !== undefined && UNSUBSCRIBE_PLACEHOLDERS.test(part));
}

const decodeAmp = (url: string) => url.replace(/&amp;/g, '&');
const escapeAttr = (url: string) => url.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

async function replaceAsync(text: string, pattern: RegExp, replacer: (...match: string[]) => Promise<string>): Promise<string> {
  const replacements = await Promise.all([...text.matchAll(pattern)].map((match) => replacer(...(match as unknown as string[]))));
  let i = 0;
  return text.replace(pattern, () => replacements[i++]!);
}

export interface TrackedContent {
  html?: string;
  text?: string;
  headers: Array<[string, string]>;
}

/**
 * One recipient's copy with tracking applied: links through the click endpoint, an open pixel,
 * the unsubscribe footer, %unsubscribe_url% and %tag_unsubscribe_url% filled, and RFC 8058
 * one-click List-Unsubscribe headers when unsubscribe tracking is on.
 */
export async function applyTracking(
  plan: TrackingPlan,
  base: string | undefined,
  claims: Omit<TrackingClaims, 'u' | 's'>,
  content: { html?: string; text?: string },
): Promise<TrackedContent> {
  let { html, text } = content;
  const headers: Array<[string, string]> = [];
  if (!base) return { html, text, headers };
  const link = async (kind: 'c' | 'o' | 'u', extra: Partial<TrackingClaims> = {}) => `${base}/${kind}/${await signClaims({ ...claims, ...extra })}`;

  if (plan.unsubscribeFooter) {
    if (html !== undefined) html = html.includes('</body>') ? html.replace('</body>', `${plan.htmlFooter}</body>`) : html + plan.htmlFooter;
    if (text !== undefined) text = `${text}\n\n${plan.textFooter}`;
  }
  if (plan.clicks !== false) {
    if (html !== undefined) {
      html = await replaceAsync(html, /(href\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi, async (_, prefix, quote, url) => `${prefix}${quote}${escapeAttr(await link('c', { u: decodeAmp(url!) }))}${quote}`);
    }
    if (text !== undefined && plan.clicks === true) {
      text = await replaceAsync(text, /https?:\/\/[^\s<>"]+/g, async (url) => link('c', { u: url! }));
    }
  }
  const unsubscribeAll = await link('u', { s: 'all' });
  const unsubscribeTags = await link('u', { s: 'tags' });
  const fill = (part: string | undefined) => part?.replace(/%unsubscribe_url%/g, unsubscribeAll).replace(/%tag_unsubscribe_url%/g, unsubscribeTags);
  html = fill(html);
  text = fill(text);
  if (plan.opens && html !== undefined) {
    const pixel = `<img width="1" height="1" alt="" style="display:none" src="${escapeAttr(await link('o'))}">`;
    if (plan.openAtTop) html = /<body[^>]*>/i.test(html) ? html.replace(/<body[^>]*>/i, (body) => body + pixel) : pixel + html;
    else html = html.includes('</body>') ? html.replace('</body>', `${pixel}</body>`) : html + pixel;
  }
  if (plan.unsubscribeFooter) {
    headers.push(['List-Unsubscribe', `<${unsubscribeAll}>`], ['List-Unsubscribe-Post', 'List-Unsubscribe=One-Click']);
  }
  return { html, text, headers };
}
