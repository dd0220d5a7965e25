import { env } from '../platform/env';
import { lookup, sameHost, type LookupType } from '../platform/dns';
import { certificateFor } from '../certificates/status';
import { dkimRecordValue, publicKeyOf } from './dkim';
import type { DnsCheck, DomainItem } from './domain-store';

export interface ExpectedRecord {
  /** Stable id under which the last observation is kept on the domain. */
  id: string;
  section: 'sending' | 'receiving';
  type: LookupType;
  name: string;
  value: string;
  priority?: string;
  /** Needed before the domain can send; the others are reported but optional. */
  required: boolean;
  matches(observed: string[]): boolean;
}

const SPF = 'v=spf1 include:amazonses.com ~all';

const spfIncludesSes = (observed: string[]) =>
  observed.some((txt) => /^v=spf1\s/i.test(txt) && /\binclude:amazonses\.com\b/i.test(txt));

/** Where a key's public half is published: its own TXT record at the signing domain. */
function dkimKeyRecordName(signingDomain: string, selector: string): string {
  return `${selector}._domainkey.${signingDomain}`;
}

/** A key's own TXT record at its signing domain, valid when it publishes this public half. */
export function dkimKeyRecord(id: string, signingDomain: string, selector: string, publicKey: string, required: boolean): ExpectedRecord {
  return {
    id,
    section: 'sending',
    type: 'TXT',
    name: dkimKeyRecordName(signingDomain, selector),
    value: dkimRecordValue(publicKey),
    required,
    matches: (observed) => observed.some((txt) => publicKeyOf(txt) === publicKey),
  };
}

/**
 * A domain's DKIM record. SES signs with d= the sending domain, so a domain whose authority is its
 * parent publishes a CNAME from its own selector name to the authority's TXT record: one key, kept
 * at the parent, verifies the subdomain's signatures.
 */
function dkimRecord(id: string, domain: DomainItem, selector: string, publicKey: string, required: boolean): ExpectedRecord {
  if (domain.dkimAuthority === domain.name) return dkimKeyRecord(id, domain.name, selector, publicKey, required);
  const target = dkimKeyRecordName(domain.dkimAuthority, selector);
  return { id, section: 'sending', type: 'CNAME', name: dkimKeyRecordName(domain.name, selector), value: target, required, matches: (observed) => observed.some((host) => sameHost(host, target)) };
}

/**
 * The records a domain must publish for SES in this region: the custom MAIL FROM (MX + SPF) that
 * aligns SPF, DKIM (our key as TXT, or SES's CNAMEs under automatic sender security), the tracking
 * CNAME (to the platform, or to the custom domain name its certificate is served from), the
 * certificate's ACM validation CNAME while it has one, and the inbound MX.
 */
export function expectedRecords(domain: DomainItem): ExpectedRecord[] {
  if (domain.type === 'sandbox') return [];
  const { AWS_REGION, TRACKING_CNAME_TARGET } = env();
  const feedbackMx = `feedback-smtp.${AWS_REGION}.amazonses.com`;
  const inboundMx = `inbound-smtp.${AWS_REGION}.amazonaws.com`;
  const records: ExpectedRecord[] = [
    {
      id: 'mailfrom-spf',
      section: 'sending',
      type: 'TXT',
      name: domain.mailfromHost,
      value: SPF,
      required: true,
      matches: spfIncludesSes,
    },
    {
      id: 'mailfrom-mx',
      section: 'sending',
      type: 'MX',
      name: domain.mailfromHost,
      value: feedbackMx,
      priority: '10',
      required: true,
      matches: (observed) => observed.some((host) => sameHost(host, feedbackMx)),
    },
  ];
  if (domain.useAutomaticSenderSecurity) {
    for (const token of domain.dkimTokens ?? []) {
      const target = `${token}.dkim.amazonses.com`;
      records.push({
        id: `dkim-${token}`,
        section: 'sending',
        type: 'CNAME',
        name: `${token}._domainkey.${domain.name}`,
        value: target,
        required: true,
        matches: (observed) => observed.some((host) => sameHost(host, target)),
      });
    }
  } else if (domain.dkimPublicKey) {
    records.push(dkimRecord('dkim', domain, domain.dkimSelector, domain.dkimPublicKey, true));
    const rotation = domain.dkimRotation;
    // The next key is published ahead of the switch, so it verifies before it signs.
    if (rotation?.pendingSelector && rotation.pendingPublicKey) records.push(dkimRecord('dkim-next', domain, rotation.pendingSelector, rotation.pendingPublicKey, false));
  }
  const certificate = certificateFor(domain);
  const trackingTarget = certificate?.target ?? TRACKING_CNAME_TARGET;
  records.push({
    id: 'tracking',
    section: 'sending',
    type: 'CNAME',
    name: `${domain.webPrefix}.${domain.name}`,
    value: trackingTarget,
    required: false,
    matches: (observed) => observed.some((host) => sameHost(host, trackingTarget)),
  });
  const validation = certificate?.validation;
  if (validation) {
    // ACM renews the certificate only while this stays published.
    records.push({
      id: 'x509-validation',
      section: 'sending',
      type: 'CNAME',
      name: validation.name,
      value: validation.value,
      required: false,
      matches: (observed) => observed.some((host) => sameHost(host, validation.value)),
    });
  }
  records.push(
    {
      id: 'inbound-mx',
      section: 'receiving',
      type: 'MX',
      name: domain.name,
      value: inboundMx,
      priority: '10',
      required: false,
      matches: (observed) => observed.some((host) => sameHost(host, inboundMx)),
    },
  );
  return records;
}

/** Looks every record up (in parallel) and says what DNS holds and whether it is right. */
export async function checkRecords(records: ExpectedRecord[]): Promise<Record<string, DnsCheck>> {
  return Object.fromEntries(await Promise.all(records.map(async (record) => [record.id, await checkRecord(record)] as const)));
}

/** Looks one record up: what DNS holds, and whether it is right (`unknown` when DNS could not say). */
export async function checkRecord(record: ExpectedRecord): Promise<DnsCheck> {
  const observed = await lookup(record.type, record.name);
  if (observed === undefined) return { cached: [], valid: 'unknown' };
  return { cached: observed, valid: record.matches(observed) ? 'valid' : 'invalid' };
}

export function recordJson(record: ExpectedRecord, check: DnsCheck | undefined) {
  return {
    is_active: true,
    cached: check?.cached ?? [],
    name: record.name,
    ...(record.priority ? { priority: record.priority } : {}),
    record_type: record.type,
    valid: check?.valid ?? 'unknown',
    value: record.value,
  };
}
