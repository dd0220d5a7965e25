import { randomBytes } from 'node:crypto';
import { putItem } from '../../data/store';
import { logger } from '../../platform/logger';
import { parseReport, ReportError, reportXml } from './parse-report';
import { ingestReport, type IngestOutcome, dmarcKeys } from './report-store';

/** What became of one report file: counted, already counted, or refused and why. */
export type FileOutcome = { file: string; status: 'ingested' | 'duplicate'; domain: string; report_id: string; org_name: string; records: number } | { file: string; status: 'refused'; reason: string };

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
    await putItem(dmarcKeys.dmarcFailure(accountId, at, randomBytes(4).toString('hex')), { file, reason: error.message, at });
    logger.info('DMARC report refused', { accountId, file, reason: error.message });
    return { file, status: 'refused', reason: error.message };
  }
}

