import { epochSeconds, isoNoZone, parseDateInput, rfc1123, rfc3339 } from '../../../functions/platform/dates';
import { eventId, messageId, objectId } from '../../../functions/platform/ids';

const moment = Date.UTC(2011, 9, 3, 8, 2, 0, 641);

it('formats each wire date as the clients parse it', () => {
  // mailgun-go's RFC2822Time wants a zero-padded day and GMT.
  expect(rfc1123(moment)).toBe('Mon, 03 Oct 2011 08:02:00 GMT');
  expect(rfc3339(moment)).toBe('2011-10-03T08:02:00.641Z');
  // mailgun-go's ISO8601Time rejects zones.
  expect(isoNoZone(moment)).toBe('2011-10-03T08:02:00');
  expect(epochSeconds(moment)).toBe(1317628920.641);
});

it('reads RFC 2822 with or without day padding, RFC 3339 and epoch seconds', () => {
  for (const input of ['Mon, 03 Oct 2011 08:02:00 -0000', 'Mon, 3 Oct 2011 08:02:00 +0000', '2011-10-03T08:02:00Z', '1317628920']) {
    expect(parseDateInput(input)?.getTime()).toBe(Date.UTC(2011, 9, 3, 8, 2, 0));
  }
  expect(parseDateInput('next tuesday')).toBeUndefined();
});

it('makes ids in the shapes the SDKs expect', () => {
  expect(objectId(moment)).toMatch(/^4e896bf8[0-9a-f]{16}$/);
  expect(eventId()).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(messageId('mg.example.com', new Date(moment))).toMatch(/^<20111003080200\.[0-9a-f]{16}@mg\.example\.com>$/);
});
