import { authorizedRecipients } from '../../accounts/sandbox-recipients';
import { findDomain, nameHolder, type DomainItem } from '../../domains/domain-store';
import { sandboxDomainOf } from '../../domains/sandbox-domain';
import { canSend } from '../../messages/accept';
import { sendPlatformMail } from '../../messages/platform-mail';
import { env } from '../../platform/env';
import { escapeHtml } from '../../platform/html-escape';
import { alertDetails, alertText, alertTitle, type RaisedAlert, testNote } from './alert-message';

/** Why no alert email can be sent (no sender domain, or it may not send): a 400 on the test route. */
export class NoAlertSender extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoAlertSender';
  }
}

/**
 * The domain alert emails come from: ALERTS_EMAIL_DOMAIN when the operator set one (sent in the
 * name of whichever account holds it in this region), else the account's own sandbox domain.
 */
async function senderDomain(accountId: string): Promise<DomainItem> {
  const configured = env().ALERTS_EMAIL_DOMAIN?.toLowerCase();
  let domain: DomainItem | undefined;
  if (configured) {
    const holder = await nameHolder(configured);
    domain = holder ? await findDomain(holder, configured) : undefined;
    if (!domain) throw new NoAlertSender(`ALERTS_EMAIL_DOMAIN ${configured} is not a domain of this region`);
  } else {
    domain = await sandboxDomainOf(accountId);
    if (!domain) throw new NoAlertSender('The account has no sandbox domain to send alert emails from, and ALERTS_EMAIL_DOMAIN is not set');
  }
  try {
    return canSend(domain);
  } catch (error) {
    throw new NoAlertSender((error as Error).message);
  }
}

/**
 * Refuses addresses an alert email could never reach: from a sandbox domain, while sandbox domains
 * send only to authorized recipients (SANDBOX_RECIPIENTS=authorized), the send worker would fail
 * every other address, so saving or testing such a setting says so instead.
 */
export async function checkAlertRecipients(accountId: string, emails: string[]): Promise<void> {
  const domain = await senderDomain(accountId);
  if (domain.type !== 'sandbox' || env().SANDBOX_RECIPIENTS !== 'authorized') return;
  const authorized = new Set([...(await authorizedRecipients(domain.accountId))].map((email) => email.toLowerCase()));
  const refused = emails.filter((email) => !authorized.has(email.toLowerCase()));
  if (refused.length) {
    throw new NoAlertSender(
      `Alert emails come from the sandbox domain ${domain.name}, which reaches only authorized recipients: ${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not one (add them with POST /v5/sandbox/auth_recipients, or set ALERTS_EMAIL_DOMAIN)`,
    );
  }
}

/**
 * Mails an alert to `emails` through the platform's own pipeline (accepted, queued, sent by the
 * send worker, with its events like any message): one message, every address a recipient.
 * Answers the message id.
 */
export async function mailAlert(accountId: string, alert: RaisedAlert, emails: string[], test = false): Promise<string> {
  const domain = await senderDomain(accountId);
  const sentence = alertText(alert);
  const when = alertDetails(alert);
  const footer = test ? testNote(alert) : `Alert id ${alert.id}, event ${alert.event}.`;
  return sendPlatformMail(domain, {
    from: { name: 'Mailplane alerts', address: `alerts@${domain.name}` },
    to: emails,
    subject: `${test ? '[Test] ' : ''}Alert: ${alertTitle(alert)}`,
    text: `${sentence}.\n\n${when}\n\n${footer}\n`,
    html: `<p><strong>${escapeHtml(sentence)}</strong>.</p><p>${escapeHtml(when)}</p><p>${escapeHtml(footer)}</p>`,
    tags: ['alert', alert.event],
  });
}
