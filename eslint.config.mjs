// One lint and format configuration for the repository (npm run lint; .ci/run enforces it).
// typescript-eslint's type-checked recommended rules find what the compiler does not
// (floating promises, `any` leaking, unsafe calls); @stylistic keeps the layout the code
// already has (2-space indent, single quotes, semicolons, trailing commas in multi-line
// lists), so the formatter is this config, not a second tool that rewraps every line.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // test/conformance is the customer's script, vendored unchanged.
    ignores: ['**/node_modules/**', '**/dist/**', 'proto/generated/**', 'proto/index.d.ts', '**/.turbo/**', 'coverage/**', '.sml/**', 'test/conformance/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@stylistic': stylistic },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // A `let` a closure reads before its one assignment (BusService.start's `self`) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
      // `void promise` marks a promise deliberately not awaited (fire-and-forget with its own catch).
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, flatTernaryExpressions: true, offsetTernaryExpressions: false, ignoredNodes: ['ConditionalExpression *'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/eol-last': ['error', 'always'],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0 }],
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/max-len': ['error', { code: 220, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreComments: false }],
    },
  },
  {
    // No function of a service longer than 80 lines: a service is wiring and thin handlers, and
    // a longer function has always turned out to be two concerns (CONTRIBUTING.md).
    files: ['services/*/src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    // Tests: jest's matchers take `any` by design (expect.objectContaining …), and tests read
    // JSON/YAML fixtures and untyped scripts (supervisor.cjs) whose shape they then assert.
    // `any` written by hand stays an error.
    files: ['**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Configuration is passed in (README "Configuration"): only an entry point reads the
    // environment or calls loadConfig, and hands each library its slice.
    files: ['packages/*/src/**/*.ts', 'services/*/src/**/*.ts'],
    ignores: [
      'services/*/src/main.ts', // a service's entry point
      'services/*/src/**/*-worker.ts', // a worker thread's entry point (its kernels)
      'packages/bus/src/runtime.ts', // runService: the services' shared entry point
      'packages/cli/src/main.ts',
      'packages/cli/src/bus.ts', // the CLI's configuration, from the environment run() was given
      'packages/core/src/config.ts', // loadConfig itself
      'packages/sdk/src/client.ts', // SmlClient.fromEnv: the SDK user's entry point
      'packages/testkit/src/**', // starts systems for tests, with their environment
    ],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Libraries take their configuration as an argument: read it in the entry point (eslint.config.mjs lists them).' }],
      'no-restricted-imports': ['error', { paths: [{ name: '@sml/core', importNames: ['loadConfig'], message: 'Only entry points load the configuration; take the slice you need as an argument.' }] }],
    },
  },
  {
    // Plain JavaScript (scripts, benchmarks, jest config): no type information.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', performance: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', AbortController: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly' },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['**/*.cjs', 'jest.config.js', 'scripts/jest-*.js', 'proto/index.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
