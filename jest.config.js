// One jest run over every workspace. TypeScript is transformed by swc (no type check here:
// `turbo run build` type-checks with tsc); @sml/* imports resolve to sources so a unit test
// never needs a build, while end-to-end tests start the built services as processes.
const path = require('node:path');

const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const mapper = {
  '^@sml/proto$': path.join(__dirname, 'proto/index.js'),
  '^@sml/(core|bus|stats|sdk|cli|testkit|jobs-client|sources)$': path.join(__dirname, 'packages/$1/src/index.ts'),
  '^@sml/stats/frames$': path.join(__dirname, 'packages/stats/src/frames.ts'),
  '^@sml/(gateway|jobs|projects|explore|encoders|streams)$': path.join(__dirname, 'services/$1/src/index.ts'),
};

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': swc },
  moduleNameMapper: mapper,
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60_000,
  setupFiles: ['<rootDir>/scripts/jest-setup.js'],
  reporters: ['<rootDir>/scripts/jest-summary-reporter.js', 'default'],
};
