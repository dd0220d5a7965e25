import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';

/**
 * DMARC aggregate reports (RFC 7489 appendix C, and the DMARCbis aggregate format of RFC 9990:
 * the same elements under a namespace, plus a few optional ones) into one model. A report comes
 * gzip, zip or plain XML, told apart by its first bytes, not by a file name. XML is parsed without
 * a DTD or entities; sizes are bounded before and after decompression.
 */
const MAX_REPORT_BYTES = 5 * 1024 * 1024;
const MAX_XML_BYTES = 50 * 1024 * 1024;
const MAX_EXPANSION = 200;

export interface ReportRecord {
  sourceIp: string;
  count: number;
  disposition: 'none' | 'quarantine' | 'reject';
  /** DMARC's own verdicts on the aligned identifiers. */
  dkimAligned: boolean;
  spfAligned: boolean;
  headerFrom: string;
  envelopeFrom: string;
  dkim: Array<{ domain: string; selector: string; result: string }>;
  spf: Array<{ domain: string; result: string }>;
  reasons: Array<{ type: string; comment: string }>;
}

export interface DmarcReport {
  orgName: string;
  reportId: string;
  /** Epoch seconds. */
  begin: number;
  end: number;
  domain: string;
  policy: { p: string; sp?: string; adkim?: string; aspf?: string };
  records: ReportRecord[];
}

export class ReportError extends Error {}

/** The XML text of an uploaded or mailed report, whatever its packing. */
export async function reportXml(bytes: Buffer): Promise<string> {
  if (bytes.length > MAX_REPORT_BYTES) throw new ReportError(`the file is larger than ${MAX_REPORT_BYTES} bytes`);
  const limit = Math.min(MAX_XML_BYTES, Math.max(bytes.length, 1024) * MAX_EXPANSION);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes, { maxOutputLength: limit }).toString('utf8');
    } catch (error) {
      throw new ReportError(`not a readable gzip file (${(error as Error).message})`);
    }
  }
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for zipped reports
    const JSZip = require('jszip') as typeof import('jszip');
    const zip = await JSZip.loadAsync(bytes).catch((error: Error) => {
      throw new ReportError(`not a readable zip file (${error.message})`);
    });
    const entry = Object.values(zip.files).find((file) => !file.dir && /\.xml$/i.test(file.name)) ?? Object.values(zip.files).find((file) => !file.dir);
    if (!entry) throw new ReportError('the zip file holds no report');
    const xml = await entry.async('nodebuffer');
    if (xml.length > limit) throw new ReportError('the report expands beyond the size allowed');
    return xml.toString('utf8');
  }
  return bytes.toString('utf8');
}

const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const str = (value: unknown) => (value === undefined || value === null ? '' : String(value).trim());

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
  parseTagValue: false,
  trimValues: true,
});

export function parseReport(xml: string): DmarcReport {
  // No DTD, hence no entity of any kind, internal or external.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new ReportError('the report declares a DTD or entities, which are refused');
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    throw new ReportError(`not well-formed XML (${(error as Error).message})`);
  }
  const feedback = doc['feedback'] as Record<string, unknown> | undefined;
  if (!feedback) throw new ReportError('not a DMARC aggregate report: no <feedback> element');
  const metadata = (feedback['report_metadata'] ?? {}) as Record<string, unknown>;
  const range = (metadata['date_range'] ?? {}) as Record<string, unknown>;
  const published = (feedback['policy_published'] ?? {}) as Record<string, unknown>;
  const report: DmarcReport = {
    orgName: str(metadata['org_name']),
    reportId: str(metadata['report_id']),
    begin: Number(str(range['begin'])),
    end: Number(str(range['end'])),
    domain: str(published['domain']).toLowerCase().replace(/\.$/, ''),
    policy: { p: str(published['p']) || 'none', ...(published['sp'] ? { sp: str(published['sp']) } : {}), ...(published['adkim'] ? { adkim: str(published['adkim']) } : {}), ...(published['aspf'] ? { aspf: str(published['aspf']) } : {}) },
    records: asArray(feedback['record'] as Record<string, unknown> | Array<Record<string, unknown>>).map(recordOf),
  };
  if (!report.orgName || !report.reportId) throw new ReportError('the report has no org_name or report_id');
  if (!report.domain) throw new ReportError('the report names no domain in policy_published');
  if (!Number.isInteger(report.begin) || !Number.isInteger(report.end)) throw new ReportError('the report has no valid date_range');
  return report;
}

function recordOf(record: Record<string, unknown>): ReportRecord {
  const row = (record['row'] ?? {}) as Record<string, unknown>;
  const evaluated = (row['policy_evaluated'] ?? {}) as Record<string, unknown>;
  const identifiers = (record['identifiers'] ?? {}) as Record<string, unknown>;
  const auth = (record['auth_results'] ?? {}) as Record<string, unknown>;
  const disposition = str(evaluated['disposition']).toLowerCase();
  const sourceIp = str(row['source_ip']);
  const count = Number(str(row['count']));
  if (!sourceIp || !Number.isSafeInteger(count) || count < 0) throw new ReportError('a record has no source_ip or a count that is not a whole number');
  return {
    sourceIp,
    count,
    disposition: disposition === 'quarantine' || disposition === 'reject' ? disposition : 'none',
    dkimAligned: str(evaluated['dkim']).toLowerCase() === 'pass',
    spfAligned: str(evaluated['spf']).toLowerCase() === 'pass',
    headerFrom: str(identifiers['header_from']).toLowerCase(),
    envelopeFrom: str(identifiers['envelope_from']).toLowerCase(),
    dkim: asArray(auth['dkim'] as Record<string, unknown> | Array<Record<string, unknown>>).map((d) => ({ domain: str(d['domain']).toLowerCase(), selector: str(d['selector']), result: str(d['result']).toLowerCase() })),
    spf: asArray(auth['spf'] as Record<string, unknown> | Array<Record<string, unknown>>).map((s) => ({ domain: str(s['domain']).toLowerCase(), result: str(s['result']).toLowerCase() })),
    reasons: asArray(evaluated['reason'] as Record<string, unknown> | Array<Record<string, unknown>>).map((r) => ({ type: str(r['type']), comment: str(r['comment']) })),
  };
}
