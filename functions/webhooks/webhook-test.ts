import { newEvent, type EventData } from '../events/event-store';
import { BadRequest } from '../platform/errors';
import { env } from '../platform/env';
import { randomHex } from '../platform/ids';
import { DeliveryError, postJson } from './http-post';
import type { WebhookName } from './names';
import { payloadOf } from './signature';
import { signingKey } from './signing-key';
import { checkWebhookUrl, webhookAddressPolicy } from './url-policy';

/**
 * `PUT /v3/domains/{domain}/webhooks/{name}/test`: POSTs a signed sample event of that type to a
 * URL and reports what the receiver answered, `{"code": <status>, "message": <reply body>}`.
 * The sample says what it is: test-mode flags, a recipient at example.com (reserved, RFC 2606).
 */
function sampleEvent(name: WebhookName, domain: string): EventData {
  const id = randomHex(8);
  const base = {
    recipient: 'alice@example.com',
    'recipient-domain': 'example.com',
    tags: ['webhook-test'],
    'user-variables': {},
    flags: { 'is-test-mode': true, 'is-authenticated': true },
    message: { headers: { 'message-id': `webhook-test.${id}@${domain}`, from: `webhook-test@${domain}`, to: 'alice@example.com', subject: 'Webhook test' }, attachments: [], size: 0 },
  };
  switch (name) {
    case 'permanent_fail':
      return newEvent('failed', { ...base, severity: 'permanent', reason: 'bounce', 'delivery-status': { code: 550, message: '5.1.1 The email account that you tried to reach does not exist (webhook test)', description: '' } });
    case 'temporary_fail':
      return newEvent('failed', { ...base, severity: 'temporary', reason: 'generic', 'delivery-status': { code: 452, message: '4.2.2 Mailbox full (webhook test)', description: '' } });
    case 'clicked':
      return newEvent('clicked', { ...base, url: 'https://example.com/', ip: '192.0.2.1', 'client-info': {} });
    case 'opened':
      return newEvent('opened', { ...base, ip: '192.0.2.1', 'client-info': {} });
    default:
      return newEvent(name, base);
  }
}

export async function testWebhook(accountId: string, domain: string, name: WebhookName, rawUrl: string) {
  const url = await checkWebhookUrl(rawUrl);
  const timeoutMs = env().WEBHOOK_TIMEOUT_MS;
  const body = JSON.stringify(payloadOf(await signingKey(accountId), sampleEvent(name, domain)));
  try {
    const reply = await postJson(url, body, { timeoutMs, policy: webhookAddressPolicy() });
    return { code: reply.status, message: reply.body };
  } catch (error) {
    if (error instanceof DeliveryError) throw new BadRequest(`${url} did not answer the test: ${error.message}`);
    throw error;
  }
}
