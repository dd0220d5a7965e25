import { namedDomains, selfAndParents } from '../../../functions/messages/sender-domains';
import { allHeaderValues, withoutFields } from '../../../functions/messages/mime-headers';

describe('namedDomains', () => {
  test.each([
    ['CEO <ceo@Victim.Example.COM>', ['victim.example.com']],
    ['"ceo@victim.example via list" <list@own.example>', ['own.example']],
    ['ceo@victim.example <me@own.example>', ['own.example', 'victim.example']],
    ['me@(a comment)victim.example', ['victim.example']],
    ['a@one.example, b@two.example', ['one.example', 'two.example']],
    ['me@xn--bcher-kva.example', ['xn--bcher-kva.example']],
    ['me@bücher.example', ['xn--bcher-kva.example']],
    ['me@victim.example.', ['victim.example']],
    ['Undisclosed recipients:;', []],
  ])('%s', (value, expected) => {
    expect(namedDomains([value]).sort()).toEqual([...expected].sort());
  });
});

test('selfAndParents stops at two labels', () => {
  expect(selfAndParents('a.b.victim.co.uk')).toEqual(['a.b.victim.co.uk', 'b.victim.co.uk', 'victim.co.uk', 'co.uk']);
  expect(selfAndParents('victim.example')).toEqual(['victim.example']);
});

describe('allHeaderValues and withoutFields', () => {
  const mime = Buffer.from('From: a@one.example\r\nX-SES-Message-Tags: t=1\r\nSender: b@two.example\r\n  (folded)\r\nfrom: c@three.example\r\nX-SES-Configuration-Set:\r\n x\r\n\r\nFrom: body@not.header\r\n\xe9\r\n', 'latin1');

  test('every value of the named fields in the header block, none from the body', () => {
    expect(allHeaderValues(mime, ['from', 'sender'])).toEqual(['a@one.example', 'b@two.example (folded)', 'c@three.example']);
  });

  test('drops fields with their folded lines and keeps every other byte', () => {
    const out = withoutFields(mime, (name) => name.startsWith('x-ses-'));
    expect(out.toString('latin1')).toBe('From: a@one.example\r\nSender: b@two.example\r\n  (folded)\r\nfrom: c@three.example\r\n\r\nFrom: body@not.header\r\n\xe9\r\n');
  });

  test('answers the same buffer when nothing matches', () => {
    expect(withoutFields(mime, () => false)).toBe(mime);
  });
});
