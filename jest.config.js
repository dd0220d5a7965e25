/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // swc strips types file by file; `npm test` type-checks the whole project once with `tsc --noEmit`.
  transform: {
    '^.+\\.[tj]s$': [
      '@swc/jest',
      {
        swcrc: false,
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022', transform: { useDefineForClassFields: true } },
        module: { type: 'commonjs' },
      },
    ],
  },
  setupFiles: ['<rootDir>/test/support/env.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testSequencer: '<rootDir>/test/support/test-sequencer.mjs',
  // Every core: integration files spend much of their time waiting on their hosts' queues and
  // timers, which another file's work fills (Jest's default leaves one core idle).
  maxWorkers: '100%',
  // A hang detector, not a speed budget: a slow or busy machine must still pass. Polls in the
  // tests give up sooner (test/support/eventually.ts), naming the condition they waited for.
  testTimeout: 300_000,
};
