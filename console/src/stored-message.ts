import { call, p, type Credentials } from './api';
import type { AttachmentLink, MessageParts } from './ui/message-view';

interface StoredMessage {
  subject?: string;
  from?: string;
  recipients?: string;
  To?: string;
  'body-html'?: string;
  'body-plain'?: string;
  'message-headers'?: Array<[string, string]>;
  attachments?: Array<{ name: string; 'content-type': string; size: number }>;
}

/** The raw MIME of a stored message (the API's message/rfc2822 reply). */
async function rawOf(credentials: Credentials, domain: string, key: string): Promise<string> {
  const reply = await call<{ 'body-mime': string }>(credentials, 'GET', p`/v3/domains/${domain}/messages/${key}`, { accept: 'message/rfc2822' });
  return reply['body-mime'];
}

/** An attachment's bytes, taken from the raw message (the stored-message JSON lists attachments without them). */
export async function attachmentFromRaw(raw: string, index: number): Promise<Blob> {
  const { default: PostalMime } = await import('postal-mime');
  const parsed = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
  const listed = parsed.attachments.filter((a) => a.disposition !== 'inline' && !a.related);
  const attachment = listed[index] ?? parsed.attachments[index];
  if (!attachment) throw new Error('The attachment is not in the stored message');
  return new Blob([attachment.content as ArrayBuffer], { type: attachment.mimeType });
}

/** A message stored by the platform (GET /v3/domains/{domain}/messages/{key}), ready for MessageView. */
export async function loadStoredMessage(credentials: Credentials, domain: string, key: string, signal?: AbortSignal): Promise<MessageParts> {
  const stored = await call<StoredMessage>(credentials, 'GET', p`/v3/domains/${domain}/messages/${key}`, { signal });
  let raw: Promise<string> | undefined;
  const rawOnce = () => (raw ??= rawOf(credentials, domain, key));
  const attachments: AttachmentLink[] = (stored.attachments ?? []).map((a, index) => ({
    name: a.name,
    contentType: a['content-type'],
    size: a.size,
    download: async () => attachmentFromRaw(await rawOnce(), index),
  }));
  return {
    subject: stored.subject ?? '',
    from: stored.from ?? '',
    to: stored.To ?? stored.recipients ?? '',
    html: stored['body-html'] || undefined,
    text: stored['body-plain'],
    headers: stored['message-headers'] ?? [],
    attachments,
    raw: rawOnce,
  };
}
