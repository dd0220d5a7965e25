import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'console/dist/', 'console/.dist-*/', 'cdk.out/', '.data/', '.cache/', 'coverage/', 'bench/.out/', 'scratch/', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // functions/ runs in Lambda and must never reach into the hosts.
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../lib/*', '../../lib/*', '../../../lib/*', 'aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'], message: 'functions/ never imports the hosts (lib/) or CDK' }] },
      ],
    },
  },
);
