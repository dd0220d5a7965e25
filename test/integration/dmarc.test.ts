import { gzipSync } from 'node:zlib';
import JSZip from 'jszip';
import nodemailer from 'nodemailer';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, sdk, startTestPlatform } from '../support/platform';

// DMARC as an account meets it: the record to publish names a rua address on the region's
// reports domain; aggregate reports mailed there (the inbound SMTP stand-in) or uploaded (gzip,
// zip or XML, RFC 7489 or RFC 9990) are counted once each, a bad one refused with its reason, and
// the dashboards' routes add up to what the XML says.
let platform: LocalPlatform;
const DOMAIN = 'brand.example.com';

beforeAll(async () => {
  platform = await startTestPlatform();
  await sdk(platform.us.url).domains.create({ name: DOMAIN });
  await sdk(platform.us.url).domains.verify(DOMAIN);
});
afterAll(() => platform.close());

const url = () => platform.us.url;

interface Row {
  ip: string;
  count: number;
  disposition?: string;
  dkim: 'pass' | 'fail';
  spf: 'pass' | 'fail';
}

/** An aggregate report as receivers write them; `bis` uses RFC 9990's namespace and elements. */
function reportXml(org: string, id: string, begin: number, rows: Row[], bis = false): string {
  const records = rows
    .map(
      (r) => `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated><disposition>${r.disposition ?? 'none'}</disposition><dkim>${r.dkim}</dkim><spf>${r.spf}</spf></policy_evaluated></row>
<identifiers><header_from>${DOMAIN}</header_from><envelope_from>${DOMAIN}</envelope_from></identifiers>
<auth_results><dkim><domain>${DOMAIN}</domain><selector>s1</selector><result>${r.dkim}</result></dkim><spf><domain>${DOMAIN}</domain><result>${r.spf}</result></spf></auth_results></record>`,
    )
    .join('\n');
  const open = bis ? '<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0"><version>1.0</version>' : '<feedback>';
  return `<?xml version="1.0" encoding="UTF-8"?>
${open}<report_metadata><org_name>${org}</org_name><email>noreply-dmarc@${org}</email><report_id>${id}</report_id><date_range><begin>${begin}</begin><end>${begin + 86_399}</end></date_range></report_metadata>
<policy_published><domain>${DOMAIN}</domain><adkim>r</adkim><aspf>r</aspf><p>quarantine</p>${bis ? '<discovery_method>treewalk</discovery_method>' : '<pct>100</pct>'}</policy_published>
${records}</feedback>`;
}

const DAY = Date.UTC(2026, 10, 20) / 1000;
const GOOGLE = reportXml('google.com', 'g-1', DAY, [
  { ip: '192.0.2.1', count: 90, dkim: 'pass', spf: 'pass' },
  { ip: '192.0.2.2', count: 10, dkim: 'fail', spf: 'fail', disposition: 'quarantine' },
]);
const MICROSOFT = reportXml('microsoft.com', 'm-1', DAY, [{ ip: '192.0.2.1', count: 40, dkim: 'pass', spf: 'fail' }], true);

function upload(files: Array<{ name: string; bytes: Buffer }>) {
  const boundary = 'dmarc-test-boundary';
  const parts = files.map((f) => Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="report"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`), f.bytes, Buffer.from('\r\n')]));
  return call(`${url()}/v1/dmarc/reports`, { method: 'POST', contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]) });
}

test('the record to publish keeps the live policy and adds a rua address on the reports domain', async () => {
  expect((await call(`${url()}/v1/dmarc/setup`)).status).toBe(404);
  const record = (await call(`${url()}/v1/dmarc/records/${DOMAIN}`)).json as { entry: string; current: string; configured: boolean; external_destination: { name: string } };
  const setup = (await call(`${url()}/v1/dmarc/setup`)).json as { InstanceID: string };
  expect(record).toMatchObject({ current: '', configured: false, entry: `v=DMARC1; p=none; rua=mailto:${setup.InstanceID}@dmarc.localhost` });
  expect(record.external_destination.name).toBe(`${DOMAIN}._report._dmarc.dmarc.localhost`);

  platform.us.dns.publish({ name: `_dmarc.${DOMAIN}`, type: 'TXT', value: 'v=DMARC1; p=reject; pct=50; rua=mailto:dmarc@elsewhere.example' });
  const live = (await call(`${url()}/v1/dmarc/records/${DOMAIN}`)).json as { entry: string; configured: boolean };
  expect(live.entry).toBe(`v=DMARC1; p=reject; rua=mailto:dmarc@elsewhere.example,mailto:${setup.InstanceID}@dmarc.localhost`);
  expect(live.configured).toBe(false);
  expect((await call(`${url()}/v1/dmarc/records/unknown.example.net`)).status).toBe(404);
});

test('uploaded reports (gzip, zip, XML, both formats) count once each; a bad one is refused with its reason', async () => {
  const zip = new JSZip();
  zip.file('microsoft.com!brand.example.com!1.xml', MICROSOFT);
  const res = await upload([
    { name: 'google.xml.gz', bytes: gzipSync(GOOGLE) },
    { name: 'microsoft.zip', bytes: await zip.generateAsync({ type: 'nodebuffer' }) },
    { name: 'broken.xml', bytes: Buffer.from('<feedback><report_metadata>') },
    { name: 'evil.xml', bytes: Buffer.from('<!DOCTYPE x [<!ENTITY a "aaaa">]><feedback/>') },
    { name: 'again.xml', bytes: Buffer.from(GOOGLE) },
  ]);
  expect(res.status).toBe(200);
  const outcomes = res.json.reports as Array<{ file: string; status: string; reason?: string; records?: number }>;
  expect(outcomes.map((o) => [o.file, o.status])).toEqual([
    ['google.xml.gz', 'ingested'],
    ['microsoft.zip', 'ingested'],
    ['broken.xml', 'refused'],
    ['evil.xml', 'refused'],
    ['again.xml', 'duplicate'],
  ]);
  expect(outcomes[3]!.reason).toContain('DTD');
  expect((await call(`${url()}/v1/dmarc/reports`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: '' })).status).toBe(400);
});

test('the dashboards add up to the XML: domain, source, host and IP levels', async () => {
  const domains = (await call(`${url()}/v1/dmarc/domains`)).json as { domains: Array<Record<string, unknown>>; pfqr_chart: unknown[] };
  // google: 100 messages (90 pass, 10 fail and quarantined); microsoft: 40 (DKIM-aligned pass, SPF fail).
  expect(domains.domains).toEqual([{ domain: DOMAIN, email_count: 140, dmarc_pass: 130, dmarc_fail: 10, compliance: 130 / 140, source_count: 1, policy: 'quarantine', last_report_at: DAY + 86_399 }]);
  expect(domains.pfqr_chart).toEqual([{ date: '2026-11-20', pass: 130, fail: 10, quarantine: 10, reject: 0 }]);

  const detail = (await call(`${url()}/v1/dmarc/domains/${DOMAIN}`)).json as Record<string, unknown> & { sources: Array<Record<string, unknown>> };
  expect(detail).toMatchObject({ email_count: 140, ip_count: 2, spf_fail_events: 50, dkim_fail_events: 10, auth_fail_events: 10 });
  // Documentation addresses have no PTR here: their source is honestly unknown.
  expect(detail.sources).toEqual([{ source: 'unknown', name: 'Unknown', type: 'unknown', email_count: 140, ip_count: 2, host_count: 1, dmarc_pass: 130, dmarc_fail: 10 }]);
  const host = (await call(`${url()}/v1/dmarc/domains/${DOMAIN}/s/unknown/h/unknown`)).json as { ip_addresses: Array<{ ip: string; email_count: number }>; auth_events: unknown[] };
  expect(host.ip_addresses.map((i) => [i.ip, i.email_count])).toEqual([['192.0.2.1', 130], ['192.0.2.2', 10]]);
  expect(host.auth_events).toHaveLength(3);
  const ip = (await call(`${url()}/v1/dmarc/domains/${DOMAIN}/s/unknown/h/unknown/ip/192.0.2.2`)).json;
  expect(ip).toMatchObject({ email_count: 10, auth_fail_events: 10, ruf: null });
  expect((await call(`${url()}/v1/dmarc/domains/${DOMAIN}?from=${DAY + 2 * 86_400}`)).json).toMatchObject({ email_count: 0 });
  expect((await call(`${url()}/v1/dmarc/domains/${DOMAIN}?to=${DAY}`)).status).toBe(400);
  expect((await call(`${url()}/v1/dmarc/domains/other.example.com`)).status).toBe(404);
});

test('a report mailed to the rua address is counted like an uploaded one', async () => {
  const setup = (await call(`${url()}/v1/dmarc/setup`)).json as { InstanceID: string };
  const yahoo = reportXml('yahoo.com', 'y-1', DAY + 86_400, [{ ip: '192.0.2.9', count: 7, dkim: 'fail', spf: 'pass' }]);
  const smtp = nodemailer.createTransport({ host: platform.us.inboundSmtp.host, port: platform.us.inboundSmtp.port, secure: false, ignoreTLS: true });
  await smtp.sendMail({
    from: 'noreply@yahoo.example',
    to: `${setup.InstanceID}@dmarc.localhost`,
    subject: `Report Domain: ${DOMAIN}`,
    text: 'DMARC aggregate report',
    attachments: [{ filename: 'yahoo.xml.gz', content: gzipSync(yahoo) }],
  });
  smtp.close();
  const domains = await eventually(async () => {
    const res = (await call(`${url()}/v1/dmarc/domains`)).json as { domains: Array<{ email_count: number }> };
    return res.domains[0]!.email_count === 147 && res;
  });
  expect(domains.domains[0]).toMatchObject({ email_count: 147, dmarc_pass: 137 });
});
