import type { EventData } from '../../../functions/events/event-store';
import { listedTrap, parseTrapList } from '../../../functions/optimize/spamtraps/trap-list';
import { nearMajorDomain } from '../../../functions/optimize/spamtraps/typo-domains';
import { isUnknownUserBounce } from '../../../functions/optimize/spamtraps/recycled';

test("the operator's list: addresses and whole domains, each with its kind; anything else is refused", () => {
  const list = parseTrapList('pristine:Trap@Example.net, recycled:@old.example\ntypo:gmial.com');
  expect(listedTrap(list, 'trap@example.net')).toBe('pristine');
  expect(listedTrap(list, 'anyone@old.example')).toBe('recycled');
  expect(listedTrap(list, 'x@GMIAL.com')).toBe('typo');
  expect(listedTrap(list, 'other@example.net')).toBeUndefined();
  expect(() => parseTrapList('trap@example.net')).toThrow(/SPAM_TRAP_LIST/);
  expect(() => parseTrapList('spammy:trap@example.net')).toThrow(/SPAM_TRAP_LIST/);
});

test('a typo domain is one or two edits from a major mailbox domain, never the domain itself', () => {
  expect(nearMajorDomain('gmial.com')).toBe('gmail.com');
  expect(nearMajorDomain('hotmial.com')).toBe('hotmail.com');
  expect(nearMajorDomain('yahooo.com')).toBe('yahoo.com');
  expect(nearMajorDomain('gmail.com')).toBeUndefined();
  expect(nearMajorDomain('example.com')).toBeUndefined();
  expect(nearMajorDomain('mycompany.io')).toBeUndefined();
});

test('an unknown-user bounce: a permanent bounce whose receiver said the address does not exist', () => {
  const failed = (status: Record<string, unknown>, extra: Record<string, unknown> = {}): EventData => ({ id: 'e', timestamp: 1, event: 'failed', severity: 'permanent', reason: 'bounce', 'delivery-status': status, ...extra });
  expect(isUnknownUserBounce(failed({ message: 'smtp; 550 5.1.1 user unknown' }))).toBe(true);
  expect(isUnknownUserBounce(failed({ description: 'NoEmail', message: '' }))).toBe(true);
  expect(isUnknownUserBounce(failed({ description: 'MailboxFull', message: '552 mailbox full' }))).toBe(false);
  expect(isUnknownUserBounce(failed({ message: '550 5.1.1 user unknown' }, { severity: 'temporary' }))).toBe(false);
  expect(isUnknownUserBounce(failed({ message: '550 5.1.1 user unknown' }, { reason: 'suppress-bounce' }))).toBe(false);
});
