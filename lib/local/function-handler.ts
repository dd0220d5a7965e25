import { join } from 'node:path';

/** A function's `handler`, loaded by its entry's path under functions/, as Lambda loads it. */
export function loadHandler<T>(entry: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(join(__dirname, '..', '..', 'functions', entry)) as { handler: T }).handler;
}
