import { csvRows } from '../../../functions/suppressions/csv';

const rows = (text: string) => [...csvRows(text)].map((row) => [row.line, row.fields]);

it('reads plain rows with LF or CRLF line ends, and a last row without one', () => {
  expect(rows('address,code\na@x.com,550\r\nb@x.com,551')).toEqual([
    [1, ['address', 'code']],
    [2, ['a@x.com', '550']],
    [3, ['b@x.com', '551']],
  ]);
});

it('reads quoted fields with commas, doubled quotes and line breaks, counting lines through them', () => {
  expect(rows('a,"b, ""quoted""\nstill b",c\nnext,,')).toEqual([
    [1, ['a', 'b, "quoted"\nstill b', 'c']],
    [3, ['next', '', '']],
  ]);
});

it('skips a leading BOM and keeps blank lines as one empty field', () => {
  expect(rows('\ufeffaddress\n\nx@y.com\n')).toEqual([
    [1, ['address']],
    [2, ['']],
    [3, ['x@y.com']],
  ]);
  expect(rows('')).toEqual([]);
});

it('refuses an unterminated quote or text after a closing quote, naming the line', () => {
  expect(() => rows('a\n"open')).toThrow('Malformed CSV: unterminated quoted field on line 2');
  expect(() => rows('"a"b,c')).toThrow('Malformed CSV: unexpected text after a quoted field on line 1');
});
