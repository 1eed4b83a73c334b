// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** A call of one of a logger's level methods (Nest's names and pino's). */
const LOG_CALL =
  "[callee.type='MemberExpression'][callee.property.name=/^(log|warn|error|debug|verbose|fatal)$/]";

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.kpm/**',
      'coverage/**',
      'bin/**',
      'eslint.config.mjs',
      'jest.config.js',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      'no-console': 'off',
    },
  },
  {
    // A screen is the ceiling; well before it a function wants named steps, split where a name
    // helps the reader, never only to pass a count (docs/design.md §8).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/__fixtures__/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 70, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The Kafka client stays behind libs/kafka, so replacing it touches one folder.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['libs/kafka/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kafkajs', message: 'Use @kpm/kafka: kafkajs stays inside libs/kafka.' }],
        },
      ],
    },
  },
  {
    // A log call is an event and its fields, `logger.warn(logEvent('shard.restore_failed', {…}))`,
    // never data baked into prose (docs/operations.md §7.5). The CLI's output to its user is not a
    // service log; scripts print to the console.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['apps/cli/**', '**/*.spec.ts', '**/__fixtures__/**', 'libs/*/scripts/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `CallExpression${LOG_CALL}:not([callee.object.name='console']):matches([arguments.0.type='TemplateLiteral'], [arguments.0.type='BinaryExpression'][arguments.0.operator='+'])`,
          message:
            "Log an event and its fields: logger.warn(logEvent('topic.thing_failed', { topic, error })), no text built from data.",
        },
        {
          selector: `CallExpression${LOG_CALL}:matches([callee.object.name=/logger$/i], [callee.object.property.name=/logger$/i], [callee.object.callee.name='Logger'])[arguments.0.type='Literal']`,
          message: "Log an event and its fields: logger.log(logEvent('lease.lost', { lease })).",
        },
      ],
    },
  },
  {
    // The dashboard's browser modules: plain ES modules served as they are (no build step).
    files: ['apps/state/src/dashboard/static/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'module',
      parserOptions: { projectService: false, project: false },
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        fetch: 'readonly',
        URLSearchParams: 'readonly',
        Headers: 'readonly',
        AbortController: 'readonly',
        TextDecoderStream: 'readonly',
        localStorage: 'readonly',
        prompt: 'readonly',
        requestAnimationFrame: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
