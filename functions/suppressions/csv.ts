import { BadRequest } from '../platform/errors';

export interface CsvRow {
  /** 1-based line on which the row starts. */
  line: number;
  fields: string[];
}

const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = '"';

function newlinesIn(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * The rows of an RFC 4180 document: quoted fields (with doubled quotes and line breaks inside),
 * CRLF or LF line ends, a leading UTF-8 BOM. Rows are produced one at a time, so an import can
 * read a 25 MB file without holding it as rows.
 */
export function* csvRows(text: string): Generator<CsvRow> {
  const end = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < end) {
    const row: CsvRow = { line, fields: [] };
    for (;;) {
      if (text[i] === QUOTE) {
        let value = '';
        for (let from = i + 1; ; ) {
          const close = text.indexOf(QUOTE, from);
          if (close === -1) throw new BadRequest(`Malformed CSV: unterminated quoted field on line ${line}`);
          value += text.slice(from, close);
          line += newlinesIn(text, from, close);
          if (text[close + 1] === QUOTE) {
            value += QUOTE;
            from = close + 2;
            continue;
          }
          i = close + 1;
          break;
        }
        row.fields.push(value);
      } else {
        let stop = i;
        while (stop < end) {
          const c = text.charCodeAt(stop);
          if (c === COMMA || c === LF || c === CR) break;
          stop++;
        }
        row.fields.push(text.slice(i, stop));
        i = stop;
      }
      if (i >= end) break;
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      if (c !== LF && c !== CR) throw new BadRequest(`Malformed CSV: unexpected text after a quoted field on line ${line}`);
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      break;
    }
    yield row;
  }
}
