import { claimAttempt, forgiveAttempt, lockedUntil, recordFailure, slowdown, sourceOf, subjectsOf } from '../../../functions/platform/auth-throttle';
import { withEnv } from '../../../functions/platform/env';
import { startDynamo, type LocalDynamo } from '../../../lib/local/dynamodb';

// The failure counts against a real table (dynalite): the limits are exact at their edges, hold
// under concurrency, and end with the window. Time is passed in, so the window needs no waiting.
let dynamo: LocalDynamo;
let settings: Record<string, string>;
const WINDOW = 900;
const T0 = Date.UTC(2026, 0, 1);
const at = (seconds: number) => T0 + seconds * 1000;

beforeAll(async () => {
  dynamo = await startDynamo(undefined, 'table', 'us-east-1');
  settings = {
    TABLE_NAME: 'table',
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW),
    AUTH_FAILURE_LIMIT_PER_LOGIN: '3',
    AUTH_FAILURE_LIMIT_PER_SOURCE: '5',
    AUTH_FAILURE_SLOW_AFTER: '3',
  };
});
afterAll(() => dynamo.close());

const run = <T>(fn: () => Promise<T>) => withEnv(settings, fn);
let n = 0;
/** A login and an address of their own, so each case starts from nothing. */
const fresh = () => ({ login: `user${++n}@example.com`, address: `192.0.2.${n}` });

it('grants a login its limit of attempts in a window and refuses the next until the window after the last has passed', async () => {
  const { login } = fresh();
  const subjects = await run(async () => subjectsOf('smtp', login, undefined));
  const claims = [];
  for (let i = 0; i < 4; i++) claims.push(await run(() => claimAttempt(subjects, at(i * 60))));
  expect(claims.map((c) => (c.granted ? c.failures : 'refused'))).toEqual([1, 2, 3, 'refused']);
  // The last counted failure was at 120 s: the lock ends a window after it.
  expect(claims[3]).toEqual({ granted: false, retryAfterSeconds: 120 + WINDOW - 180 });
  expect(await run(() => claimAttempt(subjects, at(120 + WINDOW - 1)))).toMatchObject({ granted: false, retryAfterSeconds: 1 });
  expect(await run(() => claimAttempt(subjects, at(120 + WINDOW)))).toMatchObject({ granted: true, failures: 1 });
});

it('keeps counting while failures come within a window of each other', async () => {
  const { login } = fresh();
  const subjects = await run(async () => subjectsOf('smtp', login, undefined));
  expect(await run(() => claimAttempt(subjects, at(0)))).toMatchObject({ failures: 1 });
  expect(await run(() => claimAttempt(subjects, at(WINDOW - 1)))).toMatchObject({ failures: 2 });
  expect(await run(() => claimAttempt(subjects, at(2 * WINDOW - 2)))).toMatchObject({ failures: 3 });
  expect(await run(() => claimAttempt(subjects, at(2 * WINDOW - 1)))).toMatchObject({ granted: false });
});

it('does not count a refused attempt against the other subjects, nor a forgiven one against any', async () => {
  const { address } = fresh();
  const locked = await run(async () => subjectsOf('smtp', 'locked@example.com', address));
  for (let i = 0; i < 3; i++) expect(await run(() => claimAttempt(locked, at(0)))).toMatchObject({ granted: true });
  // Refused by the login: the address's count stays at 3 of 5.
  expect(await run(() => claimAttempt(locked, at(1)))).toMatchObject({ granted: false });
  const other = await run(async () => subjectsOf('smtp', 'other@example.com', address));
  const right = await run(() => claimAttempt(other, at(2)));
  expect(right).toMatchObject({ granted: true, failures: 4 });
  if (right.granted) await run(() => forgiveAttempt(other, right.nonce));
  expect(await run(() => claimAttempt(other, at(3)))).toMatchObject({ granted: true, failures: 4 });
  expect(await run(() => claimAttempt(other, at(4)))).toMatchObject({ granted: true, failures: 5 });
  // The address is at its limit now, whichever login comes from it.
  expect(await run(async () => claimAttempt(await subjectsOf('smtp', 'third@example.com', address), at(5)))).toMatchObject({ granted: false });
});

it('grants exactly the limit however many attempts race for it', async () => {
  const { login } = fresh();
  const subjects = await run(async () => subjectsOf('smtp', login, undefined));
  const claims = await Promise.all(Array.from({ length: 20 }, () => run(() => claimAttempt(subjects, at(0)))));
  expect(claims.filter((c) => c.granted)).toHaveLength(3);
});

it('treats a login in any case and spacing as one, and an IPv6 /64 as one address', async () => {
  const one = await run(async () => subjectsOf('smtp', ' Mixed@Example.COM ', '2001:db8:1:2::1'));
  const two = await run(async () => subjectsOf('smtp', 'mixed@example.com', '2001:db8:1:2:aaaa:bbbb:cccc:dddd'));
  expect(two).toEqual(one);
  expect(sourceOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
  expect(sourceOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
  expect(sourceOf('not an address')).toBeUndefined();
  expect(await run(async () => subjectsOf('api', undefined, undefined))).toEqual([]);
});

it('locks an API subject at its limit of distinct wrong secrets, the same one sent again counting once, until the window has passed', async () => {
  const { login, address } = fresh();
  const subjects = await run(async () => subjectsOf('api', login, address));
  for (let i = 0; i < 5; i++) await run(() => recordFailure(subjects, 'same-secret', at(i)));
  expect(await run(() => lockedUntil(subjects, at(5)))).toBeUndefined();
  await run(() => recordFailure(subjects, 'second', at(10)));
  expect(await run(() => lockedUntil(subjects, at(11)))).toBeUndefined();
  await run(() => recordFailure(subjects, 'third', at(20)));
  // The key id's limit is 3: locked until a window after the last failure.
  expect(await run(() => lockedUntil(subjects, at(21)))).toBe(T0 / 1000 + 20 + WINDOW);
  expect(await run(() => lockedUntil(subjects, at(20 + WINDOW)))).toBeUndefined();
});

it('doubles the pause of each failure past the slow threshold, up to sixteen times', () => {
  withEnv(settings, () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(slowdown)).toEqual([1, 1, 1, 2, 4, 8, 16, 16, 16]);
  });
});
