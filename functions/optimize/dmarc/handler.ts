import { z } from 'zod/v3';
import { findDomain } from '../../domains/domain-store';
import { env } from '../../platform/env';
import { BadRequest, NotFound } from '../../platform/errors';
import { integer, schema } from '../../platform/http/params';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { lookup } from '../../platform/dns';
import { findManagedDomain } from '../domains/managed-domains';
import { dmarcSetup, reportIntake } from './intake';
import { dmarcDomains, rowsOf, type DmarcRow } from './report-store';
import { proposedRecord } from './record';
import { dmarcRoutes } from './routes';

/** `from` and `to` are epoch seconds; `to` needs `from` (Mailgun's rule). */
const rangeInput = () => ({ from: integer().optional(), to: integer().optional() });
const checkRange = (input: { from?: number; to?: number }) => {
  if (input.to !== undefined && input.from === undefined) throw new BadRequest("Invalid parameter 'to': it needs 'from'");
};

const sum = (rows: DmarcRow[], field: keyof Pick<DmarcRow, 'email_count' | 'dmarc_pass' | 'dmarc_fail' | 'spf_fail' | 'dkim_fail' | 'quarantine' | 'reject'>) => rows.reduce((total, row) => total + (row[field] ?? 0), 0);
const distinct = (rows: DmarcRow[], field: 'ip' | 'host' | 'source') => new Set(rows.map((row) => row[field])).size;

/** Counts of a set of rows, named as Mailgun's host and IP levels name them. */
function counters(rows: DmarcRow[]) {
  return {
    email_count: sum(rows, 'email_count'),
    ip_count: distinct(rows, 'ip'),
    spf_fail_events: sum(rows, 'spf_fail'),
    dkim_fail_events: sum(rows, 'dkim_fail'),
    auth_fail_events: sum(rows, 'dmarc_fail'),
  };
}

/** Per day: messages passing DMARC, failing it, and quarantined or rejected by the receivers. */
function pfqrChart(rows: DmarcRow[]) {
  const days = new Map<string, { date: string; pass: number; fail: number; quarantine: number; reject: number }>();
  for (const row of rows) {
    const day = days.get(row.day) ?? { date: row.day, pass: 0, fail: 0, quarantine: 0, reject: 0 };
    day.pass += row.dmarc_pass ?? 0;
    day.fail += row.dmarc_fail ?? 0;
    day.quarantine += row.quarantine ?? 0;
    day.reject += row.reject ?? 0;
    days.set(row.day, day);
  }
  return [...days.values()].sort((a, b) => a.date.localeCompare(b.date));
}

function groupBy<K extends 'source' | 'host' | 'ip'>(rows: DmarcRow[], field: K): Map<string, DmarcRow[]> {
  const groups = new Map<string, DmarcRow[]>();
  for (const row of rows) groups.set(row[field], [...(groups.get(row[field]) ?? []), row]);
  return groups;
}

const passFail = (rows: DmarcRow[]) => ({ dmarc_pass: sum(rows, 'dmarc_pass'), dmarc_fail: sum(rows, 'dmarc_fail') });
const authEvents = (rows: DmarcRow[]) => rows.flatMap((row) => (row.events ?? []).map((event) => ({ ...event, source_ip: row.ip }))).sort((a, b) => b.date.localeCompare(a.date));

/** A domain's rows, or 404 when the account has no reports for it. */
async function domainRows(accountId: string, domain: string, input: { from?: number; to?: number }): Promise<DmarcRow[]> {
  checkRange(input);
  const known = (await dmarcDomains(accountId)).some((d) => d.domain === domain.toLowerCase());
  if (!known) throw new NotFound('domain not found');
  return rowsOf(accountId, domain.toLowerCase(), input.from, input.to);
}

const domainInput = schema(() => z.object({ domain: z.string(), ...rangeInput() }));

export const handler = areaHandler(dmarcRoutes, {
  /**
   * The record to publish at `_dmarc.<domain>` so that receivers mail their reports here: the live
   * record kept (policy and all), our rua added, the tags RFC 9989 removed left out.
   */
  dmarcRecord: operation(schema(() => z.object({ domain: z.string() })), async (req, input) => {
    const domain = input.domain.toLowerCase();
    if (!(await findManagedDomain(req.accountId, domain)) && !(await findDomain(req.accountId, domain))) throw new NotFound('domain not found');
    const setup = (await dmarcSetup(req.accountId, true))!;
    const reportsDomain = env().DMARC_REPORTS_DOMAIN;
    const rua = reportsDomain ? `mailto:${setup.instanceId}@${reportsDomain}` : undefined;
    const current = ((await lookup('TXT', `_dmarc.${domain}`)) ?? []).find((txt) => /^v=DMARC1\b/i.test(txt)) ?? '';
    const proposed = proposedRecord(current, rua);
    return {
      entry: proposed.entry,
      current,
      configured: proposed.configured,
      // Reports for a domain go to another domain's address only where that domain says it takes them (RFC 7489 7.1).
      ...(reportsDomain ? { external_destination: { name: `${domain}._report._dmarc.${reportsDomain}`, type: 'TXT', value: 'v=DMARC1' } } : { note: 'DMARC_REPORTS_DOMAIN is not configured: no rua address is handed out; upload reports with POST /v1/dmarc/reports' }),
    };
  }),

  dmarcSetup: operation(() => z.object({}).passthrough(), async (req) => {
    const setup = await dmarcSetup(req.accountId, false);
    if (!setup) throw new NotFound('DMARC is not set up');
    return { InstanceID: setup.instanceId, LastAccessed: setup.lastAccessed, CreatedAt: setup.createdAt, UpdatedAt: setup.updatedAt };
  }),

  uploadDmarcReports: operation(() => z.object({}).passthrough(), async (req) => {
    const files = req.files.filter((file) => file.field === 'report');
    if (!files.length) throw new BadRequest("Missing parameter 'report': one or more files (gzip, zip or XML)");
    const reports = [];
    const { ingestFile } = reportIntake();
    for (const file of files) reports.push(await ingestFile(req.accountId, file.filename || 'report', file.content));
    return { reports };
  }),

  dmarcDomains: operation(schema(() => z.object(rangeInput())), async (req, input) => {
    checkRange(input);
    const domains = await dmarcDomains(req.accountId);
    const all: DmarcRow[] = [];
    const items = [];
    for (const domain of domains) {
      const rows = await rowsOf(req.accountId, domain.domain, input.from, input.to);
      all.push(...rows);
      const { dmarc_pass, dmarc_fail } = passFail(rows);
      const total = sum(rows, 'email_count');
      items.push({ domain: domain.domain, email_count: total, dmarc_pass, dmarc_fail, compliance: total ? dmarc_pass / total : 0, source_count: distinct(rows, 'source'), policy: domain.policy, last_report_at: domain.lastReportAt });
    }
    return { domains: items, pfqr_chart: pfqrChart(all) };
  }),

  dmarcDomain: operation(domainInput, async (req, input) => {
    const rows = await domainRows(req.accountId, input.domain, input);
    const sources = [...groupBy(rows, 'source').values()].map((group) => ({
      source: group[0]!.source,
      name: group[0]!.name,
      type: group[0]!.type,
      email_count: sum(group, 'email_count'),
      ip_count: distinct(group, 'ip'),
      host_count: distinct(group, 'host'),
      ...passFail(group),
    }));
    return { domain: input.domain.toLowerCase(), ...counters(rows), pfqr_chart: pfqrChart(rows), sources: sources.sort((a, b) => b.email_count - a.email_count) };
  }),

  dmarcSource: operation(schema(() => z.object({ domain: z.string(), source: z.string(), ...rangeInput() })), async (req, input) => {
    const rows = (await domainRows(req.accountId, input.domain, input)).filter((row) => row.source === input.source);
    if (!rows.length) throw new NotFound('source not found');
    const hosts = [...groupBy(rows, 'host').values()].map((group) => ({ host: group[0]!.host, email_count: sum(group, 'email_count'), ip_count: distinct(group, 'ip'), ...passFail(group) }));
    return { source: input.source, name: rows[0]!.name, type: rows[0]!.type, ...counters(rows), pfqr_chart: pfqrChart(rows), hosts: hosts.sort((a, b) => b.email_count - a.email_count) };
  }),

  dmarcHost: operation(schema(() => z.object({ domain: z.string(), source: z.string(), host: z.string(), ...rangeInput() })), async (req, input) => {
    const rows = (await domainRows(req.accountId, input.domain, input)).filter((row) => row.source === input.source && row.host === input.host);
    if (!rows.length) throw new NotFound('host not found');
    const ips = [...groupBy(rows, 'ip').values()].map((group) => ({ ip: group[0]!.ip, email_count: sum(group, 'email_count'), ...passFail(group), country: null, asn: null }));
    return { ...counters(rows), pfqr_chart: pfqrChart(rows), ip_addresses: ips.sort((a, b) => b.email_count - a.email_count), auth_events: authEvents(rows) };
  }),

  dmarcIp: operation(schema(() => z.object({ domain: z.string(), source: z.string(), host: z.string(), ip: z.string(), ...rangeInput() })), async (req, input) => {
    const rows = (await domainRows(req.accountId, input.domain, input)).filter((row) => row.source === input.source && row.host === input.host && row.ip === input.ip);
    if (!rows.length) throw new NotFound('ip not found');
    // Forensic (ruf) reports are not collected: null, not a placeholder.
    return { ...counters(rows), ruf: null, pfqr_chart: pfqrChart(rows), auth_events: authEvents(rows) };
  }),
}, { onBehalfOf });
