import { proposedRecord } from '../../../functions/optimize/dmarc/record';
import { sourceOfHost } from '../../../functions/optimize/dmarc/sources';

const RUA = 'mailto:abc@reports.example.net';

it('proposes a monitoring record when none is live', () => {
  expect(proposedRecord('', RUA)).toEqual({ entry: `v=DMARC1; p=none; rua=${RUA}`, configured: false });
  expect(proposedRecord('', undefined)).toEqual({ entry: 'v=DMARC1; p=none', configured: false });
});

it('keeps the live policy and tags, adds our rua once, and drops the tags RFC 9989 removed', () => {
  expect(proposedRecord('v=DMARC1; p=quarantine; sp=reject; pct=25; ri=86400; rf=afrf; adkim=s; rua=mailto:a@x.example', RUA)).toEqual({
    entry: `v=DMARC1; p=quarantine; sp=reject; adkim=s; rua=mailto:a@x.example,${RUA}`,
    configured: false,
  });
  expect(proposedRecord(`v=DMARC1; p=reject; rua=${RUA.toUpperCase()}`, RUA)).toEqual({ entry: `v=DMARC1; p=reject; rua=${RUA.toUpperCase()}`, configured: true });
});

it('names a source by its PTR: a known sender, else its registrable domain, else unknown', () => {
  expect(sourceOfHost('a8-30.smtp-out.amazonses.com')).toEqual({ source: 'amazonses', name: 'Amazon SES', type: 'ESP', host: 'a8-30.smtp-out.amazonses.com' });
  expect(sourceOfHost('mail-sor-f41.google.com')).toMatchObject({ source: 'google', type: 'ISP' });
  expect(sourceOfHost('mx1.mail.example.co.uk')).toEqual({ source: 'example.co.uk', name: 'example.co.uk', type: 'unknown', host: 'mx1.mail.example.co.uk' });
  expect(sourceOfHost(undefined)).toEqual({ source: 'unknown', name: 'Unknown', type: 'unknown', host: 'unknown' });
});
