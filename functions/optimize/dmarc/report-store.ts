import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItem, putItem, queryAll, type Key } from '../../data/store';
import { documentClient } from '../../platform/aws-clients';
import { mapLimit } from '../../platform/concurrency';
import { env } from '../../platform/env';
import type { DmarcReport, ReportRecord } from './parse-report';
import { sourcesOf, type SourceOf } from './sources';
import { defineEntity } from '../../data/key-registry';

export const dmarcKeys = defineEntity(
  'dmarc',
  {
  dmarcReport: { what: 'a DMARC report ingested, by `<org>#<report id>` (its duplicate guard)', pk: 'ACCT#<account>#DMARCREPORTS', sk: '<org*>#<report id*>', key: (accountId: string, report?: Pick<DmarcReport, 'orgName' | 'reportId'>): Key => ({ pk: `ACCT#${accountId}#DMARCREPORTS`, sk: report ? reportKeyOf(report) : '' }) },
  dmarcFailure: { what: 'a DMARC report file refused (unreadable, not a report), kept with its reason', pk: 'ACCT#<account>#DMARCFAILED', sk: '<ISO time>#<nonce>', key: (accountId: string, at = '', nonce = ''): Key => ({ pk: `ACCT#${accountId}#DMARCFAILED`, sk: at && `${at}#${nonce}` }) },
  dmarcDomain: { what: 'a domain DMARC reports were received for: its policy and latest report', pk: 'ACCT#<account>#DMARCDOMAINS', sk: '<domain>', key: (accountId: string, domain = ''): Key => ({ pk: `ACCT#${accountId}#DMARCDOMAINS`, sk: domain }) },
  dmarcRow: { what: "a domain's DMARC counts per `<UTC day>#<source IP>`", pk: 'ACCT#<account>#DMARC#<domain>', sk: '<UTC day>#<source ip>', key: (accountId: string, domain: string, day = '', ip = ''): Key => ({ pk: `ACCT#${accountId}#DMARC#${domain}`, sk: day && `${day}#${ip}` }) },
  dmarcSetup: { what: "the account's DMARC setup: its report-routing token (the rua local part)", pk: 'ACCT#<account>', sk: 'DMARCSETUP', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'DMARCSETUP' }) },
  dmarcInstance: { what: 'whose a report-routing token is, for reports mailed to the rua address', pk: 'DMARCINSTANCE#<instance id>', sk: 'OWNER', key: (instanceId: string): Key => ({ pk: `DMARCINSTANCE#${instanceId}`, sk: 'OWNER' }) },
  },
  [
    { what: 'the domains DMARC reports were received for', pk: 'ACCT#<account>#DMARCDOMAINS' },
    { what: "a domain's DMARC rows", pk: 'ACCT#<account>#DMARC#<domain>' },
  ],
);

/**
 * A DMARC report's counts, rolled up per (domain, UTC day of the report's start, source IP): one
 * item each, its counters added to with one UpdateItem that also records the report's key, and
 * refuses a report it has already counted. So a report redelivered, or retried after a crash
 * halfway, counts once; the report item, written last, is what says it was ingested whole.
 */
export interface DmarcRow {
  domain: string;
  day: string;
  ip: string;
  source: string;
  name: string;
  type: string;
  host: string;
  email_count: number;
  dmarc_pass: number;
  dmarc_fail: number;
  spf_fail: number;
  dkim_fail: number;
  none: number;
  quarantine: number;
  reject: number;
  events?: AuthEvent[];
}

export interface AuthEvent {
  date: string;
  reporter: string;
  header_from: string;
  envelope_from: string;
  disposition: string;
  count: number;
  spf: { domain: string; result: string; aligned: boolean };
  dkim: Array<{ domain: string; selector: string; result: string; aligned: boolean }>;
  override_reasons: Array<{ type: string; comment: string }>;
}

export interface ReportItem {
  domain: string;
  orgName: string;
  reportId: string;
  begin: number;
  end: number;
  records: number;
  messages: number;
  ingestedAt: string;
}

export interface DmarcDomainItem {
  domain: string;
  policy: string;
  lastReportAt: number;
}

/** Auth events kept per row and report (the detail routes show them; the counters hold the totals). */
const EVENTS_PER_ROW_REPORT = 10;

const dayOf = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);
const reportKeyOf = (report: Pick<DmarcReport, 'orgName' | 'reportId'>) => `${report.orgName}#${report.reportId}`;

function eventOf(report: DmarcReport, record: ReportRecord): AuthEvent {
  const aligned = (domain: string) => domain === record.headerFrom || domain.endsWith(`.${record.headerFrom}`) || record.headerFrom.endsWith(`.${domain}`);
  const spf = record.spf[0] ?? { domain: record.envelopeFrom, result: 'none' };
  return {
    date: dayOf(report.begin),
    reporter: report.orgName,
    header_from: record.headerFrom,
    envelope_from: record.envelopeFrom,
    disposition: record.disposition,
    count: record.count,
    spf: { ...spf, aligned: record.spfAligned && aligned(spf.domain) },
    dkim: record.dkim.map((d) => ({ ...d, aligned: d.result === 'pass' && aligned(d.domain) })),
    override_reasons: record.reasons,
  };
}

type Sums = Pick<DmarcRow, 'email_count' | 'dmarc_pass' | 'dmarc_fail' | 'spf_fail' | 'dkim_fail' | 'none' | 'quarantine' | 'reject'>;

function rollUp(report: DmarcReport): Map<string, { sums: Sums; events: AuthEvent[] }> {
  const byIp = new Map<string, { sums: Sums; events: AuthEvent[] }>();
  for (const record of report.records) {
    const entry = byIp.get(record.sourceIp) ?? { sums: { email_count: 0, dmarc_pass: 0, dmarc_fail: 0, spf_fail: 0, dkim_fail: 0, none: 0, quarantine: 0, reject: 0 }, events: [] };
    const pass = record.dkimAligned || record.spfAligned;
    entry.sums.email_count += record.count;
    entry.sums[pass ? 'dmarc_pass' : 'dmarc_fail'] += record.count;
    if (!record.spfAligned) entry.sums.spf_fail += record.count;
    if (!record.dkimAligned) entry.sums.dkim_fail += record.count;
    entry.sums[record.disposition] += record.count;
    if (entry.events.length < EVENTS_PER_ROW_REPORT) entry.events.push(eventOf(report, record));
    byIp.set(record.sourceIp, entry);
  }
  return byIp;
}

async function addRow(accountId: string, report: DmarcReport, ip: string, source: SourceOf, rolled: { sums: Sums; events: AuthEvent[] }): Promise<void> {
  const day = dayOf(report.begin);
  const counters = Object.entries(rolled.sums).filter(([, n]) => n > 0);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: env().TABLE_NAME,
        Key: dmarcKeys.dmarcRow(accountId, report.domain, day, ip),
        UpdateExpression: `SET #domain = :domain, #day = :day, #ip = :ip, #source = :source, #name = :name, #type = :type, #host = :host, #events = list_append(if_not_exists(#events, :empty), :events) ADD #reports :report${counters.map((_, i) => `, #c${i} :c${i}`).join('')}`,
        ConditionExpression: 'attribute_not_exists(#reports) OR NOT contains(#reports, :reportKey)',
        ExpressionAttributeNames: {
          '#domain': 'domain', '#day': 'day', '#ip': 'ip', '#source': 'source', '#name': 'name', '#type': 'type', '#host': 'host', '#events': 'events', '#reports': 'reports',
          ...Object.fromEntries(counters.map(([name], i) => [`#c${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':domain': report.domain, ':day': day, ':ip': ip, ':source': source.source, ':name': source.name, ':type': source.type, ':host': source.host,
          ':events': rolled.events, ':empty': [], ':report': new Set([reportKeyOf(report)]), ':reportKey': reportKeyOf(report),
          ...Object.fromEntries(counters.map(([, n], i) => [`:c${i}`, n])),
        },
      }),
    );
  } catch (error) {
    // Counted by an earlier attempt at this very report.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

export type IngestOutcome = { status: 'ingested' | 'duplicate'; report: ReportItem };

export async function ingestReport(accountId: string, report: DmarcReport): Promise<IngestOutcome> {
  const reportKey = dmarcKeys.dmarcReport(accountId, report);
  const existing = await getItem<ReportItem>(reportKey, { consistent: true });
  if (existing) return { status: 'duplicate', report: existing };
  const rolled = rollUp(report);
  const sources = await sourcesOf([...rolled.keys()]);
  await mapLimit([...rolled.entries()], 32, ([ip, entry]) => addRow(accountId, report, ip, sources.get(ip)!, entry));
  const item: ReportItem = {
    domain: report.domain,
    orgName: report.orgName,
    reportId: report.reportId,
    begin: report.begin,
    end: report.end,
    records: report.records.length,
    messages: report.records.reduce((sum, r) => sum + r.count, 0),
    ingestedAt: new Date().toISOString(),
  };
  const domain = await getItem<DmarcDomainItem>(dmarcKeys.dmarcDomain(accountId, report.domain));
  if (!domain || domain.lastReportAt <= report.end) await putItem(dmarcKeys.dmarcDomain(accountId, report.domain), { domain: report.domain, policy: report.policy.p, lastReportAt: report.end } satisfies DmarcDomainItem);
  // Last: its presence says the whole report is counted.
  return (await putItem(reportKey, item, { ifAbsent: true })) ? { status: 'ingested', report: item } : { status: 'duplicate', report: item };
}

export const dmarcDomains = (accountId: string) => queryAll<DmarcDomainItem>(dmarcKeys.dmarcDomain(accountId), '');

/** A domain's rows whose day lies within [from, to] (epoch seconds; either may be absent). */
export async function rowsOf(accountId: string, domain: string, from?: number, to?: number): Promise<DmarcRow[]> {
  const rows = await queryAll<DmarcRow>(dmarcKeys.dmarcRow(accountId, domain), '');
  const first = from === undefined ? '' : dayOf(from);
  const last = to === undefined ? '\uffff' : dayOf(to);
  return rows.filter((row) => row.day >= first && row.day <= last);
}
