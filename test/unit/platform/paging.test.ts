import { z } from 'zod/v3';
import { absoluteUrl, pivotPageInput, pivotPaging, pivotQuery, skipLimitInput } from '../../../functions/platform/http/paging';
import { validate } from '../../../functions/platform/http/params';

const pageInput = pivotPageInput('address', 100, 1000);

it('builds absolute URLs back to the caller’s host', () => {
  expect(absoluteUrl('http://127.0.0.1:3000', '/v3/x.com/bounces', { page: 'next', address: 'a@b.com', limit: 10, skip: undefined })).toBe(
    'http://127.0.0.1:3000/v3/x.com/bounces?page=next&address=a%40b.com&limit=10',
  );
});

it('reads pivot requests the way mailgun.js and mailgun-go send them', () => {
  expect(validate(pageInput, {})).toEqual({ page: 'first', limit: 100 });
  expect(validate(pageInput, { page: 'next', address: 'a@x.com', limit: '2' })).toEqual({ page: 'next', pivot: 'a@x.com', limit: 2 });
  expect(validate(pageInput, { page: 'previous', address: 'a@x.com' })).toEqual({ page: 'prev', pivot: 'a@x.com', limit: 100 });
  expect(validate(pageInput, { page: 'next' })).toEqual({ page: 'first', limit: 100 });
  expect(() => validate(pageInput, { page: 'sideways' })).toThrow("Invalid parameter 'page': must be one of first, last, next, prev");
  expect(() => validate(pageInput, { limit: '1001' })).toThrow("Invalid parameter 'limit': can't be larger than 1000");
});

it('plans each page as a direction and an exclusive bound', () => {
  expect(pivotQuery({ page: 'first', limit: 5 })).toEqual({ ascending: true });
  expect(pivotQuery({ page: 'last', limit: 5 })).toEqual({ ascending: false });
  expect(pivotQuery({ page: 'next', pivot: 'm', limit: 5 })).toEqual({ ascending: true, after: 'm' });
  expect(pivotQuery({ page: 'prev', pivot: 'm', limit: 5 })).toEqual({ ascending: false, before: 'm' });
});

it('points next past the last item and previous before the first, keeping filters', () => {
  const paging = pivotPaging('http://h', '/v3/d/bounces', 'address', { page: 'first', limit: 2 }, ['a@x.com', 'b@x.com'], { term: 'a' });
  expect(paging).toEqual({
    first: 'http://h/v3/d/bounces?term=a&page=first&limit=2',
    last: 'http://h/v3/d/bounces?term=a&page=last&limit=2',
    next: 'http://h/v3/d/bounces?term=a&page=next&address=b%40x.com&limit=2',
    previous: 'http://h/v3/d/bounces?term=a&page=prev&address=a%40x.com&limit=2',
  });
});

it('keeps the pivot on an empty page so the end stays the end', () => {
  const paging = pivotPaging('http://h', '/p', 'p', { page: 'next', pivot: 'z', limit: 2 }, []);
  expect(paging.next).toBe('http://h/p?page=next&p=z&limit=2');
});

it('offers skip/limit with Mailgun’s bounds', () => {
  const schema = z.object(skipLimitInput(100, 1000));
  expect(validate(schema, {})).toEqual({ skip: 0, limit: 100 });
  expect(() => validate(schema, { skip: '-1' })).toThrow("Invalid parameter 'skip': must not be negative");
});
