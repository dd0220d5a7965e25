import type { ParsedFields } from './parsed-message';
import type { WebhookSignature } from '../webhooks/signature';

/**
 * The multipart form Mailgun posts for forward("https://...") and store(notify="https://..."):
 * the parsed message's fields, every header as its own field, attachments as file parts
 * `attachment-1..N`, and the signature fields at the top level (contract §5). A notification
 * adds `domain` and `message-url`.
 */
export async function routeForm(
  fields: ParsedFields,
  envelope: { recipient: string; sender: string },
  signature: WebhookSignature,
  notify?: { domain: string; messageUrl: string },
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields.topLevel)) form.append(name, value);
  const text: Record<string, string> = {
    recipient: envelope.recipient,
    sender: envelope.sender,
    from: fields.from,
    subject: fields.subject,
    'body-plain': fields['body-plain'],
    'stripped-text': fields['stripped-text'],
    'stripped-signature': fields['stripped-signature'],
    'body-html': fields['body-html'],
    'stripped-html': fields['stripped-html'],
    'attachment-count': String(fields.attachments.length),
    'content-id-map': JSON.stringify(Object.fromEntries(fields.inline.map((part, i) => [`<${part.cid}>`, `attachment-${fields.attachments.length + i + 1}`]))),
    'message-headers': JSON.stringify(fields['message-headers']),
    ...signature,
    ...(notify ? { domain: notify.domain, 'message-url': notify.messageUrl } : {}),
  };
  for (const [name, value] of Object.entries(text)) form.set(name, value);
  [...fields.attachments, ...fields.inline].forEach((part, i) => form.append(`attachment-${i + 1}`, new Blob([new Uint8Array(part.content)], { type: part['content-type'] }), part.name));
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}
