import { BadRequest } from '../platform/errors';
import { renderTemplate } from '../templates/render';
import { yesNo, type SendParams } from './send-params';

/** What a message says, once its stored template (if any) is rendered. */
export interface MessageContent {
  from?: string;
  subject?: string;
  text?: string;
  html?: string;
  headers: Array<[string, string]>;
  /** For events and the stored message (X-Mailgun-Template-*). */
  template?: { name: string; version: string; 'is-text': boolean; variables: Record<string, unknown> };
}

function jsonObject(name: string, raw: unknown): Record<string, unknown> {
  const text = Array.isArray(raw) ? raw.at(-1) : raw;
  if (text === undefined || text === '') return {};
  try {
    const parsed: unknown = typeof text === 'string' ? JSON.parse(text) : text;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Falls through to the refusal below.
  }
  throw new BadRequest(`'${name}' must be a JSON object`);
}

/** A stored template named by a send, rendered with its variables. */
export interface NamedTemplate {
  rendered: Awaited<ReturnType<typeof renderTemplate>>;
  /** For events and the stored message (X-Mailgun-Template-*). */
  template: NonNullable<MessageContent['template']>;
}

/**
 * Renders `template` (the `t:version` tag, or the active one) with its variables: `v:` fields,
 * then `h:X-Mailgun-Variables` (how mailgun-go sends them), then `t:variables`, later ones
 * winning. Undefined when the send names no template.
 */
export async function namedTemplate(accountId: string, domain: string, params: SendParams, form: Record<string, unknown>): Promise<NamedTemplate | undefined> {
  const name = [form['template']].flat().at(-1);
  if (typeof name !== 'string' || name.trim() === '') return undefined;
  const variables = { ...params.variables, ...jsonObject('h:X-Mailgun-Variables', form['h:X-Mailgun-Variables']), ...jsonObject('t:variables', form['t:variables']) };
  const textToo = yesNo('t:text', form['t:text']) ?? false;
  const version = [form['t:version']].flat().at(-1);
  const rendered = await renderTemplate(accountId, domain, name, { version: typeof version === 'string' ? version : undefined, variables, text: textToo });
  return { rendered, template: { name: name.trim().toLowerCase(), version: rendered.version, 'is-text': textToo, variables } };
}

/** The headers Mailgun writes into a message sent with a template: what events and the stored message name. */
export function templateHeaders(template: NonNullable<MessageContent['template']>): Array<[string, string]> {
  return [
    ['X-Mailgun-Template-Name', template.name],
    ['X-Mailgun-Template-Variables', JSON.stringify(template.variables)],
  ];
}

/**
 * The message's content, with its stored template (if any) rendered: what the message itself
 * gives (from, subject, text, headers) wins over the template.
 */
export async function messageContent(accountId: string, domain: string, params: SendParams, form: Record<string, unknown>): Promise<MessageContent> {
  const own: MessageContent = { from: params.from, subject: params.subject, text: params.text, html: params.html, headers: params.headers };
  const named = await namedTemplate(accountId, domain, params, form);
  if (!named) return own;
  const { rendered, template } = named;
  const given = new Set(params.headers.map(([header]) => header.toLowerCase()));
  const storedReplyTo = rendered.headers['Reply-To'];
  return {
    from: params.from ?? rendered.headers.From,
    subject: params.subject ?? rendered.headers.Subject,
    text: params.text ?? rendered.text,
    html: rendered.html,
    headers: [...(storedReplyTo && !given.has('reply-to') ? [['Reply-To', storedReplyTo] as [string, string]] : []), ...params.headers],
    template,
  };
}
