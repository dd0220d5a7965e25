import { validate } from '../../../functions/platform/http/params';
import { allowlistRecord, bounceRecord, isEmailAddress, unsubscribeRecord } from '../../../functions/suppressions/schemas';
import { unsubscribeCovers } from '../../../functions/suppressions/unsubscribes';

describe('unsubscribeCovers', () => {
  it('covers everything for * or no tags, else only messages sharing a tag', () => {
    expect(unsubscribeCovers(['*'], [])).toBe(true);
    expect(unsubscribeCovers([], ['x'])).toBe(true);
    expect(unsubscribeCovers(['news'], ['promo', 'news'])).toBe(true);
    expect(unsubscribeCovers(['news'], ['promo'])).toBe(false);
    expect(unsubscribeCovers(['news'], [])).toBe(false);
  });
});

describe('records', () => {
  it('accepts the addresses real mail uses, VERP and sub-addressing included', () => {
    for (const address of ['a@x.co', 'first.last+tag@mail.example.com', 'bounce=user=example.com@lists.example.org', "o'brien@x.ie"]) {
      expect([address, isEmailAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['plain', '@x.com', 'a@', 'a@localhost', 'a..b@x.com', '.a@x.com', 'a b@x.com', `${'l'.repeat(65)}@x.com`]) {
      expect([address, isEmailAddress(address)]).toEqual([address, false]);
    }
  });

  it('fills bounce defaults, keeps the code a string and the date ISO', () => {
    expect(validate(bounceRecord(), { address: ' Bob@X.com ', code: 551, created_at: 'Mon, 03 Oct 2011 08:02:00 GMT' })).toEqual({
      list: 'bounces',
      address: 'bob@x.com',
      code: '551',
      error: '',
      createdAt: '2011-10-03T08:02:00.000Z',
    });
    expect(validate(bounceRecord(), { address: 'bob@x.com', code: '' }).code).toBe('550');
  });

  it('merges unsubscribe tag and tags, defaulting to every message', () => {
    expect(validate(unsubscribeRecord(), { address: 'u@x.com', tag: 'a', tags: ['b', 'a'] }).tags).toEqual(['a', 'b']);
    expect(validate(unsubscribeRecord(), { address: 'u@x.com', tags: 'c, d' }).tags).toEqual(['c', 'd']);
    expect(validate(unsubscribeRecord(), { address: 'u@x.com', tags: [] }).tags).toEqual(['*']);
  });

  it('allowlists an address before a domain, and needs one of them', () => {
    expect(validate(allowlistRecord(), { address: 'a@x.com', domain: 'y.com' })).toMatchObject({ type: 'address', address: 'a@x.com' });
    expect(validate(allowlistRecord(), { domain: 'Y.com.', address: '' })).toMatchObject({ type: 'domain', address: 'y.com' });
    expect(() => validate(allowlistRecord(), { reason: 'r' })).toThrow('Missing mandatory parameter: address/domain');
  });
});
