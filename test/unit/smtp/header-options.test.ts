import { headerOptions } from '../../../functions/smtp/header-options';
import { readSendParams } from '../../../functions/messages/send-params';

const message = (...headers: string[]) => Buffer.from([...headers, '', 'X-Mailgun-Tag: not a header, the body', ''].join('\r\n'));

it("turns Mailgun's SMTP headers into the HTTP API's options, case-insensitively", () => {
  const { form } = headerOptions(
    message(
      'From: a@example.com',
      'x-mailgun-tag: one',
      'X-Mailgun-Tag: two',
      'X-Mailgun-Drop-Message: yes',
      'X-MAILGUN-TRACK: no',
      'X-Mailgun-Track-Clicks: htmlonly',
      'X-Mailgun-Track-Opens: yes',
      'X-Mailgun-Require-TLS: true',
      'X-Mailgun-Skip-Verification: no',
      'X-Mailgun-Dkim: yes',
      'X-Mailgun-Deliver-By: Fri, 14 Oct 2011 12:00:00 +0000',
    ),
  );
  expect(form).toEqual({
    'o:tag': ['one', 'two'],
    'o:testmode': 'yes',
    'o:tracking': 'no',
    'o:tracking-clicks': 'htmlonly',
    'o:tracking-opens': 'yes',
    'o:require-tls': 'true',
    'o:skip-verification': 'no',
    'o:dkim': 'yes',
    'o:deliverytime': 'Fri, 14 Oct 2011 12:00:00 +0000',
  });
  const params = readSendParams({ ...form, 'o:deliverytime': undefined, to: 'x@example.com' }, []);
  expect(params).toMatchObject({ tags: ['one', 'two'], testMode: true, requireTls: true, tracking: { tracking: false, clicks: 'htmlonly', opens: true } });
});

it('merges every X-Mailgun-Variables header, folded or encoded, into v: options of strings', () => {
  const { form } = headerOptions(
    message('X-Mailgun-Variables: {"first_name": "John",', '  "last_name": "Smith"}', 'X-Mailgun-Variables: {"my_message_id": 123, "nested": {"a": [1]}}', 'X-Mailgun-Variables: =?UTF-8?B?eyJjaXR5IjogIk3DvG5jaGVuIn0=?='),
  );
  expect(form).toEqual({ 'v:first_name': 'John', 'v:last_name': 'Smith', 'v:my_message_id': '123', 'v:nested': '{"a":[1]}', 'v:city': 'München' });
});

it('takes the instructions out of the message and keeps the tag and variables headers, the body untouched', () => {
  const raw = message('From: a@example.com', 'X-Mailgun-Track: no', 'X-Mailgun-Tag: t', 'Subject: s', 'X-Mailgun-Variables: {"k":"v"}', 'X-Mailgun-Drop-Message:', ' yes', 'X-Mailgun-Something-New: kept');
  const { mime } = headerOptions(raw);
  expect(mime.toString()).toBe(
    ['From: a@example.com', 'X-Mailgun-Tag: t', 'Subject: s', 'X-Mailgun-Variables: {"k":"v"}', 'X-Mailgun-Something-New: kept', '', 'X-Mailgun-Tag: not a header, the body', ''].join('\r\n'),
  );
  // The last header removed: no blank line appears before the body.
  expect(headerOptions(Buffer.from('From: a@example.com\nX-Mailgun-Track: no\n\nbody')).mime.toString()).toBe('From: a@example.com\n\nbody');
  // Nothing to take out: the very same buffer.
  const plain = message('From: a@example.com');
  expect(headerOptions(plain).mime).toBe(plain);
});

it('reads templates and batch values as the form options, and takes them out of the message', () => {
  const { form, mime } = headerOptions(
    message('From: a@example.com', 'X-Mailgun-Template-Name: welcome', 'X-Mailgun-Template-Version: v2', 'X-Mailgun-Template-Variables: {"plan":"pro"}', 'X-Mailgun-Recipient-Variables: {"b@example.com":{"first":"Bo"}}'),
  );
  expect(form).toEqual({ template: 'welcome', 't:version': 'v2', 't:variables': '{"plan":"pro"}', 'recipient-variables': '{"b@example.com":{"first":"Bo"}}' });
  // No copy may carry every recipient's values.
  expect(mime.toString()).not.toMatch(/X-Mailgun-(Template|Recipient)/i);
});

it('reads the sending IP and pool as their o: options, and takes them out of the message', () => {
  const { form, mime } = headerOptions(message('From: a@example.com', 'X-Mailgun-Sending-Ip: 192.0.2.10', 'X-Mailgun-Sending-Ip-Pool: 6b07fe127d290106645371f1'));
  expect(form).toEqual({ 'o:sending-ip': '192.0.2.10', 'o:sending-ip-pool': '6b07fe127d290106645371f1' });
  expect(mime.toString()).not.toMatch(/X-Mailgun-Sending/i);
  expect(readSendParams({ ...form, to: 'x@example.com' }, [])).toMatchObject({ sendingIp: '192.0.2.10', sendingIpPool: '6b07fe127d290106645371f1' });
});

it('refuses what it cannot honour rather than ignoring it', () => {
  expect(() => headerOptions(message('X-Mailgun-Variables: [1,2]'))).toThrow('X-Mailgun-Variables must be a JSON object');
  expect(() => headerOptions(message('X-Mailgun-Variables: {oops'))).toThrow('X-Mailgun-Variables must be a JSON object');
  // Send-time optimization maps to its o: option, which the HTTP checks refuse by name.
  const { form } = headerOptions(message('X-Mailgun-Delivery-Time-Optimize-Period: 24h'));
  expect(() => readSendParams({ ...form, to: 'x@example.com' }, [])).toThrow("'o:deliverytime-optimize-period' is not available on this server yet");
});
