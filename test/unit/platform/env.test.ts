import { env, withEnv } from '../../../functions/platform/env';

it('reads process.env once, and again when a value it uses changes', () => {
  process.env.TABLE_NAME = 'first';
  const a = env();
  expect(a.TABLE_NAME).toBe('first');
  expect(env()).toBe(a);
  process.env.TABLE_NAME = 'second';
  expect(env().TABLE_NAME).toBe('second');
});

it('gives a scoped environment precedence, parsed once', () => {
  const scoped = { TABLE_NAME: 'scoped', PLATFORM_REGION: 'eu' };
  const [x, y] = withEnv(scoped, () => [env(), env()]);
  expect(x).toBe(y);
  expect(x).toMatchObject({ TABLE_NAME: 'scoped', PLATFORM_REGION: 'eu' });
});
