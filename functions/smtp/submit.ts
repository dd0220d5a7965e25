import type { SmtpIdentity } from '../credentials/credentials';
import { sendingDomain } from '../messages/accept';
import { acceptMime } from '../messages/mime-submission';
import { readSendParams } from '../messages/send-params';
import { headerOptions } from './header-options';

/** What the SMTP session gathered around one message. */
export interface SmtpEnvelope {
  /** MAIL FROM (the return path the client asked for; SES sets its own). */
  mailFrom: string;
  /** RCPT TO: the recipients, whatever the headers say (Bcc is whoever is only here). */
  rcptTo: string[];
}

/**
 * One message submitted over SMTP by an authenticated login: sent from the login's domain, to the
 * envelope's recipients, with the X-Mailgun-* headers as its options, through the same accept
 * path as POST /v3/{domain}/messages.mime. Refusals are ApiErrors, as the HTTP API's are.
 */
export async function submitMessage(identity: SmtpIdentity, envelope: SmtpEnvelope, mime: Buffer): Promise<{ id: string }> {
  const domain = await sendingDomain(identity.accountId, identity.domain);
  const options = headerOptions(mime);
  const params = readSendParams({ ...options.form, to: envelope.rcptTo }, []);
  return acceptMime({ accountId: identity.accountId, domain, mime: options.mime, params, form: options.form, method: 'smtp' });
}
