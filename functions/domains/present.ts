import { rfc1123 } from '../platform/dates';
import { env } from '../platform/env';
import { expectedRecords, recordJson } from './dns-records';
import type { DomainItem } from './domain-store';

/** The Domain object of contract §3.1; `extended` adds what h:extended=true asks for. */
export function domainJson(domain: DomainItem, extended = false) {
  return {
    id: domain.domainId,
    name: domain.name,
    state: domain.isDisabled ? 'disabled' : domain.state,
    type: domain.type,
    created_at: rfc1123(domain.createdAt),
    is_disabled: domain.isDisabled,
    ...(domain.disabled ? { disabled: domain.disabled } : {}),
    require_tls: domain.requireTls,
    skip_verification: domain.skipVerification,
    wildcard: domain.wildcard,
    spam_action: domain.spamAction,
    smtp_login: `postmaster@${domain.name}`,
    web_prefix: domain.webPrefix,
    web_scheme: domain.webScheme,
    use_automatic_sender_security: domain.useAutomaticSenderSecurity,
    encrypt_incoming_message: domain.encryptIncomingMessage,
    message_ttl: domain.messageTtl,
    archive_to: domain.archiveTo ?? '',
    ...(extended
      ? {
          dkim_host: domain.type === 'sandbox' ? domain.name : `${domain.dkimSelector}._domainkey.${domain.dkimAuthority}`,
          mailfrom_host: domain.mailfromHost,
          pod: env().PLATFORM_REGION,
        }
      : {}),
  };
}

export function dnsRecordsJson(domain: DomainItem) {
  const checks = domain.dnsChecks ?? {};
  const records = expectedRecords(domain);
  return {
    sending_dns_records: records.filter((r) => r.section === 'sending').map((r) => recordJson(r, checks[r.id])),
    receiving_dns_records: records.filter((r) => r.section === 'receiving').map((r) => recordJson(r, checks[r.id])),
  };
}
