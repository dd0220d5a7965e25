import { runInNewContext } from 'node:vm';
import { matchFilter, parseAction, parseFilter, withCaptures } from '../../../functions/mailroutes/expressions';
import { evaluateRoutes } from '../../../functions/mailroutes/mailroutes';
import type { RouteItem } from '../../../functions/mailroutes/route-store';
import { ApiError } from '../../../functions/platform/errors';

const headers: Array<[string, string]> = [
  ['Subject', 'Need support please'],
  ['X-Priority', '1'],
];

function status(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (error) {
    return (error as ApiError).status;
  }
  return undefined;
}

describe('filters', () => {
  test('match_recipient with either quote, anchored at the start, case-insensitive, with named captures', () => {
    const filter = parseFilter(`match_recipient("(?P<user>.*?)@example\\.com")`);
    expect(matchFilter(filter, { recipient: 'Joe@EXAMPLE.com', headers })).toMatchObject({ user: 'Joe' });
    expect(matchFilter(filter, { recipient: 'joe@example.org', headers })).toBeUndefined();
    expect(matchFilter(parseFilter(`match_recipient('sales@.*')`), { recipient: 'x-sales@a.com', headers })).toBeUndefined();
  });

  test('match_header matches the named header, any case', () => {
    expect(matchFilter(parseFilter('match_header("subject", ".*support")'), { recipient: 'a@b.c', headers })).toEqual({});
    expect(matchFilter(parseFilter('match_header("X-Priority", "2")'), { recipient: 'a@b.c', headers })).toBeUndefined();
  });

  test('catch_all() matches everything', () => {
    expect(matchFilter(parseFilter(' catch_all() '), { recipient: 'a@b.c', headers: [] })).toEqual({});
  });

  test('bad expressions and bad regexes are 400s', () => {
    expect(status(() => parseFilter('match_recipient("(unclosed")'))).toBe(400);
    expect(status(() => parseFilter('match_to("x")'))).toBe(400);
    expect(status(() => parseFilter('match_header("", "x")'))).toBe(400);
    // Backreferences and lookaround are not RE2: refused when saved rather than failing later.
    expect(status(() => parseFilter('match_recipient("(a)\\1")'))).toBe(400);
    expect(status(() => parseFilter('match_recipient("(?=a)")'))).toBe(400);
  });

  test('a pathological pattern runs in linear time on RE2', () => {
    const filter = parseFilter('match_header("subject", "(a+)+$")');
    const match = () => matchFilter(filter, { recipient: 'a@b.c', headers: [['Subject', `${'a'.repeat(50_000)}!`]] });
    // A backtracking engine would not finish this in any lifetime; RE2 takes milliseconds. The vm
    // timeout only turns such a hang into a failure (synchronous code is out of jest's reach).
    expect(runInNewContext('match()', { match }, { timeout: 60_000 })).toBeUndefined();
  });
});

describe('actions', () => {
  test('forward to a URL or an address, store with or without notify, stop', () => {
    expect(parseAction('forward("https://example.com/in")')).toEqual({ kind: 'forward', destination: 'https://example.com/in' });
    expect(parseAction("forward('ann@example.com')")).toEqual({ kind: 'forward', destination: 'ann@example.com' });
    expect(parseAction('store(notify="https://example.com/n")')).toEqual({ kind: 'store', notify: 'https://example.com/n' });
    expect(parseAction('store()')).toEqual({ kind: 'store' });
    expect(parseAction('stop()')).toEqual({ kind: 'stop' });
  });

  test('unknown actions and bad destinations are 400s', () => {
    expect(status(() => parseAction('drop()'))).toBe(400);
    expect(status(() => parseAction('forward("ftp://x")'))).toBe(400);
    expect(status(() => parseAction('store(notify="not a url")'))).toBe(400);
  });

  test('captures fill \\g<name> in destinations', () => {
    expect(withCaptures('https://example.com/in?user=\\g<user>', { user: 'joe' })).toBe('https://example.com/in?user=joe');
  });
});

describe('evaluation order', () => {
  const route = (id: string, priority: number, expression: string, actions: string[], createdAt: string): RouteItem => ({
    accountId: 'a',
    id,
    priority,
    description: '',
    expression,
    actions,
    createdAt,
  });

  test('lower priority first, then the older route; every match runs until stop()', () => {
    const routes = [
      route('1', 0, 'match_recipient(".*@example.com")', ['forward("https://a.example/1")'], '2024-01-01T00:00:00Z'),
      route('2', 0, 'match_recipient("(?P<user>.*)@example.com")', ['forward("https://a.example/\\g<user>")', 'stop()'], '2024-01-02T00:00:00Z'),
      route('3', 5, 'catch_all()', ['store()'], '2023-01-01T00:00:00Z'),
    ].sort((a, b) => a.priority - b.priority || a.createdAt.localeCompare(b.createdAt));
    const matched = evaluateRoutes(routes, { recipient: 'joe@example.com', headers: [] });
    expect(matched.map((m) => m.route.id)).toEqual(['1', '2']);
    expect(matched[1]!.actions[0]).toEqual({ kind: 'forward', destination: 'https://a.example/joe' });
    expect(evaluateRoutes(routes, { recipient: 'x@other.org', headers: [] }).map((m) => m.route.id)).toEqual(['3']);
  });
});
