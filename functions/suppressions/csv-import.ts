import { BadRequest, PayloadTooLarge } from '../platform/errors';
import type { UploadedFile } from '../platform/http/body';
import { validate } from '../platform/http/params';
import { addEntries } from './add-entries';
import { csvRows } from './csv';
import type { SuppressionList } from './lists';
import { RECORD_SCHEMAS } from './schemas';
import type { EntryRecord } from './suppression-store';

/** Mailgun's limit on an import file. */
const MAX_IMPORT_BYTES = 25 * 1024 * 1024;

/** The header must name at least one of these columns; other columns are ignored. */
const KEY_COLUMNS: Record<SuppressionList, readonly string[]> = {
  bounces: ['address'],
  complaints: ['address'],
  unsubscribes: ['address'],
  whitelists: ['address', 'domain'],
};

/** The file's records, each row checked as the single form is; the first bad line refuses the file. */
function recordsOf(text: string, list: SuppressionList): EntryRecord[] {
  const rows = csvRows(text);
  const first = rows.next();
  const header = first.done ? [] : first.value.fields.map((name) => name.trim().toLowerCase());
  if (!KEY_COLUMNS[list].some((column) => header.includes(column))) {
    throw new BadRequest(`while reading csv header: expected a column named ${KEY_COLUMNS[list].join(' or ')}`);
  }
  const schema = RECORD_SCHEMAS[list]();
  const records: EntryRecord[] = [];
  for (const { line, fields } of rows) {
    if (fields.every((field) => field.trim() === '')) continue;
    const row = Object.fromEntries(header.map((name, column) => [name, fields[column] ?? '']));
    try {
      records.push(validate(schema, row));
    } catch (error) {
      throw error instanceof BadRequest ? new BadRequest(`${error.message} (line ${line})`) : error;
    }
  }
  return records;
}

/**
 * Imports a CSV file into a list, synchronously: every row is checked before anything is written,
 * so a refused file changes nothing; then the entries are written WRITE_CONCURRENCY at a time,
 * a later row for the same address winning. Answers how many entries were written
 * (allowlisted bounces are skipped).
 */
export async function importCsv(accountId: string, domain: string, list: SuppressionList, file: UploadedFile | undefined): Promise<number> {
  if (!file) throw new BadRequest("Missing parameter 'file'");
  if (file.content.length > MAX_IMPORT_BYTES) throw new PayloadTooLarge('The CSV file must be 25MB or under');
  const records = recordsOf(file.content.toString('utf8'), list);
  return addEntries(accountId, domain, records);
}
