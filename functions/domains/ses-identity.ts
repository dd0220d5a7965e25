import {
  AlreadyExistsException,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  PutEmailIdentityDkimAttributesCommand,
  PutEmailIdentityDkimSigningAttributesCommand,
  PutEmailIdentityMailFromAttributesCommand,
  type DkimSigningAttributes,
} from '@aws-sdk/client-sesv2';
import { sesClient } from '../platform/aws-clients';

/** How SES signs a domain's mail: with our key (Mailgun-style TXT record) or with its own (CNAMEs). */
export type DkimSigning = { kind: 'byodkim'; selector: string; privateKeyBase64: string } | { kind: 'ses' };

function signingAttributes(signing: DkimSigning): DkimSigningAttributes | undefined {
  return signing.kind === 'byodkim'
    ? { DomainSigningSelector: signing.selector, DomainSigningPrivateKey: signing.privateKeyBase64 }
    : undefined;
}

/**
 * Creates (or takes over) the SES identity of a sending domain, with its DKIM signing and custom
 * MAIL FROM. Returns the Easy DKIM tokens when SES manages the keys.
 */
export async function registerIdentity(domain: string, mailFromDomain: string, signing: DkimSigning): Promise<string[] | undefined> {
  const ses = sesClient();
  let tokens: string[] | undefined;
  try {
    const created = await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: domain, DkimSigningAttributes: signingAttributes(signing) }));
    tokens = created.DkimAttributes?.Tokens;
  } catch (error) {
    if (!(error instanceof AlreadyExistsException)) throw error;
    const updated = await ses.send(
      new PutEmailIdentityDkimSigningAttributesCommand({
        EmailIdentity: domain,
        SigningAttributesOrigin: signing.kind === 'byodkim' ? 'EXTERNAL' : 'AWS_SES',
        SigningAttributes: signingAttributes(signing),
      }),
    );
    tokens = updated.DkimTokens;
  }
  await setMailFrom(domain, mailFromDomain);
  return signing.kind === 'ses' ? tokens : undefined;
}

/**
 * Switches the key SES signs a domain's mail with (BYODKIM), or turns signing off when the domain
 * has no active key left: SES then sends unsigned by the domain rather than with a retired key.
 */
export async function setSigningKey(domain: string, key: { selector: string; privateKeyBase64: string } | undefined): Promise<void> {
  const ses = sesClient();
  if (key) {
    await ses.send(
      new PutEmailIdentityDkimSigningAttributesCommand({
        EmailIdentity: domain,
        SigningAttributesOrigin: 'EXTERNAL',
        SigningAttributes: { DomainSigningSelector: key.selector, DomainSigningPrivateKey: key.privateKeyBase64 },
      }),
    );
  }
  await ses.send(new PutEmailIdentityDkimAttributesCommand({ EmailIdentity: domain, SigningEnabled: key !== undefined }));
}

export async function setMailFrom(domain: string, mailFromDomain: string): Promise<void> {
  await sesClient().send(
    new PutEmailIdentityMailFromAttributesCommand({ EmailIdentity: domain, MailFromDomain: mailFromDomain, BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' }),
  );
}

export interface IdentityStatus {
  verifiedForSending: boolean;
  dkimStatus?: string;
  mailFromStatus?: string;
}

/** SES's own view of the identity, or undefined when SES has none. */
export async function identityStatus(domain: string): Promise<IdentityStatus | undefined> {
  try {
    const out = await sesClient().send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
    return {
      verifiedForSending: out.VerifiedForSendingStatus === true,
      dkimStatus: out.DkimAttributes?.Status,
      mailFromStatus: out.MailFromAttributes?.MailFromDomainStatus,
    };
  } catch (error) {
    if (error instanceof NotFoundException) return undefined;
    throw error;
  }
}

export async function deleteIdentity(domain: string): Promise<void> {
  try {
    await sesClient().send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
  } catch (error) {
    if (!(error instanceof NotFoundException)) throw error;
  }
}
