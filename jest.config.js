/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // middy ships ESM only; let ts-jest turn it into CommonJS like our own sources.
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true }, diagnostics: false }] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 30000,
};
