import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRecords, PublishedRecords } from '../../../lib/local/published-records';

test('reads the records a user writes: names, types, values, comments and blank lines', () => {
  expect(
    parseRecords(`# comment\n\nEmail.Mg.Example.com.  CNAME  LocalHost.\n_x.mg.example.com TXT "v=spf1 -all"\nmg.example.com MX 10 mx.example.net # trailing\nbroken line\n`),
  ).toEqual([
    { name: 'email.mg.example.com', type: 'CNAME', value: 'localhost' },
    { name: '_x.mg.example.com', type: 'TXT', value: 'v=spf1 -all' },
    { name: 'mg.example.com', type: 'MX', priority: 10, value: 'mx.example.net' },
  ]);
});

test('keeps them in its file, re-read when the file changes, with the comments kept', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-zone-'));
  try {
    const file = join(dir, 'dns-zone.txt');
    const records = new PublishedRecords(file);
    expect(readFileSync(file, 'utf8')).toMatch(/^# Records this region's local DNS server publishes/);
    records.publish({ name: 'email.mg.example.com', type: 'CNAME', value: 'elsewhere.example.net' });
    records.publish({ name: 'email.mg.example.com', type: 'CNAME', value: 'localhost' });
    expect(records.entry('EMAIL.mg.example.com')).toEqual({ cname: 'localhost' });
    expect(readFileSync(file, 'utf8')).toMatch(/# Records this region's[\s\S]*\nemail\.mg\.example\.com CNAME localhost\n$/);
    writeFileSync(file, `${readFileSync(file, 'utf8')}mg.example.com TXT "hello"\n`);
    expect(records.entry('mg.example.com')).toEqual({ txt: ['hello'], mx: [] });
    records.unpublish('email.mg.example.com');
    expect(records.entry('email.mg.example.com')).toBeUndefined();
    expect(new PublishedRecords(file).entry('mg.example.com')).toEqual({ txt: ['hello'], mx: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
