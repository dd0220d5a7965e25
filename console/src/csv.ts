/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
function field(value: unknown): string {
  const text = value === undefined || value === null ? '' : Array.isArray(value) ? value.join(',') : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  return [columns.join(','), ...rows.map((row) => columns.map((c) => field(row[c])).join(','))].join('\r\n') + '\r\n';
}
