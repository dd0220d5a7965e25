import { canSend } from '../messages/accept';
import { sendPlatformMail } from '../messages/platform-mail';
import { escapeHtml } from '../platform/html-escape';
import type { DomainItem } from '../domains/domain-store';

/**
 * The confirmation an authorized recipient gets, sent through the platform's own pipeline from the
 * account's sandbox domain (so it has its accepted and delivered events like any message; the
 * send worker lets it reach the address that is not activated yet, and nothing else does).
 */
export async function mailConfirmation(sandbox: DomainItem, email: string, link: string): Promise<void> {
  const domain = canSend(sandbox);
  const text = `The owner of ${domain.name} asked to send test messages to ${email}.\n\nTo agree, open:\n${link}\n\nIf you did not expect this, ignore it: nothing is sent to you until the link is opened.\n`;
  const html = `<p>The owner of <strong>${escapeHtml(domain.name)}</strong> asked to send test messages to ${escapeHtml(email)}.</p><p><a href="${escapeHtml(link)}">Agree to receive them</a></p><p>If you did not expect this, ignore it: nothing is sent to you until the link is opened.</p>`;
  await sendPlatformMail(domain, {
    from: { name: `Sandbox ${domain.name}`, address: `postmaster@${domain.name}` },
    to: [email],
    subject: `Confirm that ${domain.name} may send you test mail`,
    text,
    html,
    purpose: 'sandbox-confirmation',
  });
}
