import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** functions/ runs in Lambda and must never reach into the hosts. */
const NO_HOSTS = { group: ['../lib/*', '../../lib/*', '../../../lib/*', '../../../../lib/*', 'aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'], message: 'functions/ never imports the hosts (lib/) or CDK' };
const GROUND_FLOORS = ['platform', 'data'];

export default tseslint.config(
  { ignores: ['node_modules/', 'console/dist/', 'console/.dist-*/', 'cdk.out/', '.data/', '.cache/', 'coverage/', 'bench/.out/', 'scratch/', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [NO_HOSTS] }],
    },
  },
  // The ground floors (functions/platform/, functions/data/) import each other and libraries, never
  // an area or the tables above them: what they need from an area is passed in (docs/architecture.md,
  // "Layers"). One block per folder depth, since imports are relative; test/unit/architecture.test.ts
  // checks the same on the whole import graph (require() and import() included) and that there is
  // no import circle in functions/ or lib/.
  ...[1, 2, 3, 4].map((depth) => ({
    files: GROUND_FLOORS.map((floor) => `functions/${floor}/${'*/'.repeat(depth - 1)}*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_HOSTS,
            {
              regex: `^(\\.\\./){${depth}}(?!(${GROUND_FLOORS.join('|')})/)`,
              message: `functions/${GROUND_FLOORS.join('/ and functions/')}/ import no area: pass what they need in (a port, a parameter), or move it down`,
            },
          ],
        },
      ],
    },
  })),
);
