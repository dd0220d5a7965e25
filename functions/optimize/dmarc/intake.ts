import { randomBytes } from 'node:crypto';
import { keys } from '../../data/db';
import { getItem, putItem } from '../../data/store';
import { logger } from '../../platform/logger';
import { parseReport, ReportError, reportXml } from './parse-report';
import { ingestReport, type IngestOutcome } from './report-store';

/** What became of one report file: counted, already counted, or refused and why. */
export type FileOutcome = { file: string; status: 'ingested' | 'duplicate'; domain: string; report_id: string; org_name: string; records: number } | { file: string; status: 'refused'; reason: string };

export interface DmarcSetupItem {
  instanceId: string;
  createdAt: string;
  updatedAt: string;
  lastAccessed: string;
}

/** The account's report-routing token, made on first use: reports mailed to `<token>@<reports domain>` are its. */
export async function dmarcSetup(accountId: string, create: boolean): Promise<DmarcSetupItem | undefined> {
  const existing = await getItem<DmarcSetupItem>(keys.dmarcSetup(accountId), { consistent: true });
  if (existing || !create) return existing;
  const now = new Date().toISOString();
  const setup: DmarcSetupItem = { instanceId: randomBytes(10).toString('hex'), createdAt: now, updatedAt: now, lastAccessed: now };
  await putItem(keys.dmarcInstance(setup.instanceId), { accountId });
  if (await putItem(keys.dmarcSetup(accountId), setup, { ifAbsent: true })) return setup;
  return getItem<DmarcSetupItem>(keys.dmarcSetup(accountId), { consistent: true });
}

/**
 * One file, whatever its packing, into the account's counts. A bad file is refused with its
 * reason and kept as such; it never stops the others.
 */
export async function ingestFile(accountId: string, file: string, bytes: Buffer): Promise<FileOutcome> {
  try {
    const report = parseReport(await reportXml(bytes));
    const outcome: IngestOutcome = await ingestReport(accountId, report);
    return { file, status: outcome.status, domain: report.domain, report_id: report.reportId, org_name: report.orgName, records: report.records.length };
  } catch (error) {
    if (!(error instanceof ReportError)) throw error;
    const at = new Date().toISOString();
    await putItem(keys.dmarcFailure(accountId, `${at}#${randomBytes(4).toString('hex')}`), { file, reason: error.message, at });
    logger.info('DMARC report refused', { accountId, file, reason: error.message });
    return { file, status: 'refused', reason: error.message };
  }
}

/**
 * Reports mailed to rua addresses (`<instance id>@<DMARC_REPORTS_DOMAIN>`), from the inbound
 * path: each attachment (or, with none, the body) is a report of the instance's account.
 */
export async function receiveDmarcMail(recipients: readonly string[], mime: Buffer): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- mailparser only for mailed reports (large; the API path never needs it)
  const { simpleParser } = require('mailparser') as typeof import('mailparser');
  const parsed = await simpleParser(mime, { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true });
  const files = parsed.attachments.length ? parsed.attachments.map((a) => ({ name: a.filename ?? 'report', bytes: a.content })) : [{ name: 'body', bytes: Buffer.from(parsed.text ?? '') }];
  for (const recipient of recipients) {
    const owner = await getItem<{ accountId: string }>(keys.dmarcInstance(recipient.split('@')[0] ?? ''));
    if (!owner) {
      logger.info('DMARC report for an unknown rua address, dropped', { recipient });
      continue;
    }
    for (const file of files) {
      const outcome = await ingestFile(owner.accountId, file.name, file.bytes);
      logger.info('DMARC report received by mail', { accountId: owner.accountId, ...outcome });
    }
  }
}
