/* eslint-disable @typescript-eslint/no-require-imports -- each module is loaded in a fresh registry */
import { z } from 'zod/v3';
import { schema } from '../../../functions/platform/http/params';
import { operation } from '../../../functions/platform/http/pipeline';
import { areas } from '../../../functions/routes';

/**
 * Every Lambda entry loads without building a zod schema: schemas are built on the first request
 * that needs them (`operation(() => ...)` in functions/platform/http/pipeline.ts, `schema(() => ...)`
 * in functions/platform/http/params.ts): a request reaches one operation of its area, so building
 * every operation's schema at load is cold-start time spent for nothing. The one exception is the
 * environment contract (functions/platform/env.ts), which every request reads: it is loaded before
 * the count starts.
 */

/** zod schemas constructed while `load` runs, in a fresh module registry (zod included) where `before` ran first. */
function schemasBuilt(load: (zod: typeof import('zod/v3')) => unknown, before: () => unknown = () => undefined): number {
  let built = 0;
  jest.isolateModules(() => {
    const zod = require('zod/v3') as typeof import('zod/v3');
    before();
    // Every schema's constructor assigns `_def` once: count those assignments, and let the
    // property be the plain one it would have been.
    Object.defineProperty(zod.ZodType.prototype, '_def', {
      configurable: true,
      set(this: object, value: unknown) {
        built += 1;
        Object.defineProperty(this, '_def', { value, writable: true, enumerable: true, configurable: true });
      },
    });
    try {
      load(zod);
    } finally {
      delete (zod.ZodType.prototype as unknown as Record<string, unknown>)['_def'];
    }
  });
  return built;
}

test('the count sees schemas being built', () => {
  expect(schemasBuilt(({ z }) => z.object({ name: z.string() }).parse({ name: 'x' }))).toBeGreaterThanOrEqual(2);
});

test.each(['authorizer', ...areas])('the %s handler builds no zod schema at load', (entry) => {
  const built = schemasBuilt(
    () => require(`../../../functions/${entry}/handler`),
    () => require('../../../functions/platform/env'),
  );
  expect(built).toBe(0);
});

test('an operation builds its schema on its first request, and only then', () => {
  const build = jest.fn(() => z.object({ id: z.string() }));
  const op = operation(build, async () => ({}));
  expect(build).not.toHaveBeenCalled();
  expect(op.input()).toBe(op.input());
  expect(build).toHaveBeenCalledTimes(1);
});

test('schema() builds on first use and keeps what it built', () => {
  const build = jest.fn(() => z.string());
  const lazy = schema(build);
  expect(build).not.toHaveBeenCalled();
  expect(lazy()).toBe(lazy());
  expect(build).toHaveBeenCalledTimes(1);
});
