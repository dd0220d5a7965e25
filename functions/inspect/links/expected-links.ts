import { parse as parseCsv } from 'csv-parse/sync';
import { Workbook } from 'exceljs';
import { read as readWorkbook, utils as sheetUtils } from '@e965/xlsx';
import type { LinkResult } from './link-checker';

/**
 * POST /v1/inspect/links/{id}/csv: the links a test found, compared with the spreadsheet of links
 * the sender expected (contract §1, semantics ours). Columns: `url` (required), optional
 * `expected_status` and `expected_url` (where the link should end after redirects); a file without
 * a header row is read as URLs in its first column. One error per data row whose URL the test does
 * not have, or whose result disagrees; then one per link of the test that the file does not list,
 * with `row` 0 (it has no row). `row` counts data rows from 1.
 */

export interface ExpectedFile {
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export interface Comparison {
  valid: boolean;
  errors: Array<{ row: number; message: string; alert: unknown }>;
}

/** A file that cannot be read as a list of links: the route answers 400 with the message. */
class ExpectedLinksError extends Error {
  override name = 'ExpectedLinksError';
}

const MAX_ROWS = 10_000;

function isZip(data: Buffer): boolean {
  return data.length > 4 && data.readUInt32LE(0) === 0x04034b50;
}

/** OLE2 compound file: the legacy binary .xls (and .doc) container. */
function isOle2(data: Buffer): boolean {
  return data.length > 8 && data.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    const v = value as { text?: unknown; hyperlink?: unknown; result?: unknown; richText?: Array<{ text: string }> };
    if (typeof v.hyperlink === 'string') return v.hyperlink;
    if (typeof v.text === 'string') return v.text;
    if (v.richText) return v.richText.map((r) => r.text).join('');
    if (v.result !== undefined) return cellText(v.result);
  }
  return String(value);
}

/**
 * Legacy binary XLS (Excel 97-2003, BIFF8 in an OLE2 container): SheetJS reads it, from its npm
 * republication (`@e965/xlsx`, SheetJS CE 0.20; the `xlsx` package on npm stopped at 0.18.5, with
 * known flaws). exceljs reads XLSX only.
 */
function rowsOfXls(data: Buffer): string[][] {
  let workbook: ReturnType<typeof readWorkbook>;
  try {
    workbook = readWorkbook(data, { type: 'buffer', cellFormula: false, cellHTML: false });
  } catch (error) {
    throw new ExpectedLinksError(`The file is not a readable XLS workbook: ${(error as Error).message}`);
  }
  const sheet = workbook.SheetNames[0] ? workbook.Sheets[workbook.SheetNames[0]] : undefined;
  if (!sheet) throw new ExpectedLinksError('The workbook has no worksheet');
  return (sheetUtils.sheet_to_json(sheet, { header: 1, raw: false, blankrows: false }) as unknown[][]).map((row) => row.map((cell) => cellText(cell)));
}

async function rowsOfXlsx(data: Buffer): Promise<string[][]> {
  const workbook = new Workbook();
  try {
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch (error) {
    throw new ExpectedLinksError(`The file is not a readable XLSX workbook: ${(error as Error).message}`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new ExpectedLinksError('The workbook has no worksheet');
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    rows.push(values.map(cellText));
  });
  return rows;
}

function rowsOfCsv(data: Buffer): string[][] {
  const text = data.toString('utf8').replace(/^\uFEFF/, '');
  if (text.includes('\u0000')) throw new ExpectedLinksError('The file is neither CSV text nor an XLS or XLSX workbook');
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = [',', ';', '\t'].sort((a, b) => firstLine.split(b).length - firstLine.split(a).length)[0]!;
  try {
    return parseCsv(text, { delimiter, relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (error) {
    throw new ExpectedLinksError(`The CSV cannot be read: ${(error as Error).message}`);
  }
}

interface ExpectedRow {
  row: number;
  url: string;
  expectedStatus?: number;
  expectedUrl?: string;
}

function expectedRows(rows: string[][]): ExpectedRow[] {
  if (!rows.length) throw new ExpectedLinksError('The file lists no links');
  const header = rows[0]!.map((cell) => cell.trim().toLowerCase());
  const hasHeader = header.includes('url');
  const column = (name: string) => header.indexOf(name);
  const [urlAt, statusAt, finalAt] = hasHeader ? [column('url'), column('expected_status'), column('expected_url')] : [0, -1, -1];
  const data = hasHeader ? rows.slice(1) : rows;
  if (data.length > MAX_ROWS) throw new ExpectedLinksError(`The file lists more than ${MAX_ROWS} links`);
  return data
    .map((cells, i) => {
      const status = statusAt >= 0 ? cells[statusAt]?.trim() : undefined;
      const expectedStatus = status ? Number(status) : undefined;
      if (status && !Number.isInteger(expectedStatus)) throw new ExpectedLinksError(`Row ${i + 1}: expected_status '${status}' is not an HTTP status code`);
      return { row: i + 1, url: (cells[urlAt] ?? '').trim(), expectedStatus, expectedUrl: finalAt >= 0 ? cells[finalAt]?.trim() || undefined : undefined };
    })
    .filter((row) => row.url !== '');
}

/** Where a link ended: the last hop's URL of its redirect chain, or the link itself. */
function finalUrlOf(result: LinkResult): string {
  const hops = [...result.passes, ...result.failures].find((f) => f.id === 'redirect_check')?.details ?? [];
  const last = hops.at(-1) as { url?: string } | undefined;
  return last?.url ?? result.url;
}

const same = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a.trim() === b.trim();
  }
};

export async function compareWithExpected(file: ExpectedFile, results: LinkResult[]): Promise<Comparison> {
  const rows = expectedRows(isOle2(file.data) ? rowsOfXls(file.data) : isZip(file.data) ? await rowsOfXlsx(file.data) : rowsOfCsv(file.data));
  const errors: Comparison['errors'] = [];
  const matched = new Set<LinkResult>();
  for (const expected of rows) {
    // An email often links one address several times (a button and its Outlook VML twin): one row covers them all.
    const sameLinks = results.filter((r) => same(r.url, expected.url));
    const result = sameLinks[0];
    if (!result) {
      errors.push({ row: expected.row, message: `${expected.url} is not among the links of this test`, alert: null });
      continue;
    }
    for (const link of sameLinks) matched.add(link);
    if (expected.expectedStatus !== undefined && result.status_code !== expected.expectedStatus) {
      errors.push({ row: expected.row, message: `${expected.url} answered ${result.status_code ?? 'nothing'}, expected ${expected.expectedStatus}`, alert: result });
    } else if (expected.expectedUrl && !same(finalUrlOf(result), expected.expectedUrl)) {
      errors.push({ row: expected.row, message: `${expected.url} ends at ${finalUrlOf(result)}, expected ${expected.expectedUrl}`, alert: result });
    } else if (expected.expectedStatus === undefined && result.status !== 'Valid') {
      errors.push({ row: expected.row, message: `${expected.url} did not pass: ${result.failures.map((f) => f.rule).join(', ') || result.status}`, alert: result });
    }
  }
  for (const result of results) {
    if (!matched.has(result)) errors.push({ row: 0, message: `${result.url} is in the email but not in the file`, alert: result });
  }
  return { valid: errors.length === 0, errors };
}
