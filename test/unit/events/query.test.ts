import { decodeCursor, encodeCursor, type EventsCursor } from '../../../functions/events/query';

const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('events page tokens', () => {
  it('read back what the listing wrote', () => {
    const cursor: EventsCursor = { from: 1_700_000_000_000, to: 1_700_086_400_000, ascending: true, limit: 50, filters: { event: 'delivered OR failed' }, position: '1700000000123#abc' };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it.each([
    ['not base64 JSON', 'forged'],
    ['JSON null', token(null)],
    ['a limit of a billion', token({ from: 0, ascending: true, limit: 1e9, filters: {} })],
    ['an instant that is not finite', token({ from: '-Infinity', ascending: true, limit: 10, filters: {} })],
    ['filters that are not strings', token({ from: 0, ascending: true, limit: 10, filters: { event: ['a'] } })],
    ['a filter on a field there is none of', token({ from: 0, ascending: true, limit: 10, filters: { nope: 'a' } })],
    ['a position longer than any event key', token({ from: 0, ascending: true, limit: 10, filters: {}, position: 'a'.repeat(2000) })],
  ])('refuse a forged token with %s as a 400', (_, value) => {
    expect(() => decodeCursor(value)).toThrow(expect.objectContaining({ status: 400, message: 'Invalid page token' }));
  });

  it('take a token written without filters as one with none', () => {
    expect(decodeCursor(token({ from: 0, ascending: false, limit: 10 })).filters).toEqual({});
  });
});
