import { randomBytes } from 'node:crypto';
import { getItem, putItem } from '../../data/store';
import { logger } from '../../platform/logger';
import { dmarcKeys } from './report-store';

export interface DmarcSetupItem {
  instanceId: string;
  createdAt: string;
  updatedAt: string;
  lastAccessed: string;
}

/** The account's report-routing token, made on first use: reports mailed to `<token>@<reports domain>` are its. */
export async function dmarcSetup(accountId: string, create: boolean): Promise<DmarcSetupItem | undefined> {
  const existing = await getItem<DmarcSetupItem>(dmarcKeys.dmarcSetup(accountId), { consistent: true });
  if (existing || !create) return existing;
  const now = new Date().toISOString();
  const setup: DmarcSetupItem = { instanceId: randomBytes(10).toString('hex'), createdAt: now, updatedAt: now, lastAccessed: now };
  await putItem(dmarcKeys.dmarcInstance(setup.instanceId), { accountId });
  if (await putItem(dmarcKeys.dmarcSetup(accountId), setup, { ifAbsent: true })) return setup;
  return getItem<DmarcSetupItem>(dmarcKeys.dmarcSetup(accountId), { consistent: true });
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
    const owner = await getItem<{ accountId: string }>(dmarcKeys.dmarcInstance(recipient.split('@')[0] ?? ''));
    if (!owner) {
      logger.info('DMARC report for an unknown rua address, dropped', { recipient });
      continue;
    }
    for (const file of files) {
      const outcome = await reportIntake().ingestFile(owner.accountId, file.name, file.bytes);
      logger.info('DMARC report received by mail', { accountId: owner.accountId, ...outcome });
    }
  }
}

/**
 * Reading and counting reports (fast-xml-parser, the public suffix list, jszip): on AWS a bundle of
 * its own beside the DMARC area's index.js (lib/side-bundles.ts), loaded by the first upload, so the
 * dashboards' routes never parse it.
 */
export function reportIntake(): typeof import('./report-intake') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (cold start)
  return require('./report-intake') as typeof import('./report-intake');
}
