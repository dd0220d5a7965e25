import { createHash } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { logger } from '../../platform/logger';
import { previewCatalog } from './catalog';
import { asList, chooseClients, createPreviewTest } from './create-test';
import { previewAddressOwner } from './preview-address';
import { previewTestId } from './preview-store';
import { escapeHtml } from '../../platform/html-escape';

/** A preview test id fixed by the received message and recipient: a redelivery makes the same test. */
const receivedTestId = (objectKey: string, recipient: string) => previewTestId(createHash('sha512').update(`${objectKey}\n${recipient}`).digest());

const header = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);

/**
 * Mail received for preview addresses (contract §5.9, Email on Acid's "auto inbox"): each becomes
 * a preview test of the address's account, with the message's subject and HTML (its text, shown
 * as preformatted, when it has none). `X-EOA-CLIENTS` names the clients (comma list; the account's
 * defaults otherwise), `X-EOA-REFERENCE-ID` the reference id, and a `+suffix` of the local part
 * (or `X-EOA-USER-GUID`) the customer id. Content checks stay off, as Email on Acid's do.
 */
export async function receivePreviewMail(recipients: readonly string[], mime: Buffer, objectKey: string): Promise<void> {
  const parsed = await simpleParser(mime, { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true });
  const html = typeof parsed.html === 'string' && parsed.html ? parsed.html : `<pre>${escapeHtml(parsed.text ?? '')}</pre>`;
  for (const recipient of recipients) {
    const localPart = recipient.split('@')[0] ?? '';
    const accountId = await previewAddressOwner(localPart);
    if (!accountId) {
      logger.info('mail for an unknown preview address, dropped', { recipient });
      continue;
    }
    const clientsHeader = header(parsed.headers.get('x-eoa-clients'));
    const catalog = await previewCatalog();
    const clients = chooseClients(clientsHeader ? asList(clientsHeader) : undefined, catalog);
    const suffix = localPart.includes('+') ? localPart.slice(localPart.indexOf('+') + 1) : undefined;
    const created = await createPreviewTest({
      id: receivedTestId(objectKey, recipient),
      accountId,
      subject: parsed.subject || '(no subject)',
      html,
      clients: clients.clients.length ? clients.clients : chooseClients(undefined, catalog).clients,
      imageBlocking: false,
      headers: {},
      referenceId: header(parsed.headers.get('x-eoa-reference-id')),
      customerId: suffix || header(parsed.headers.get('x-eoa-user-guid')),
      checks: {},
    });
    logger.info('preview test made from received mail', { accountId, testId: created?.test.id ?? 'already made', unknownClients: clients.warnings.length });
  }
}
