// One jest run over every workspace, in three tiers (jest projects) told apart by file name:
//   unit         `*.test.ts`      no process, no socket (scripts/jest-tier.js makes it so)
//   integration  `*.int.test.ts`  one real server or tool per file (nats-server, PostgreSQL,
//                                 s3rver, the Kafka mock, an in-process HTTP stand-in, openssl…)
//                                 started by the test itself, but no SML service process
//   system       `*.e2e.test.ts`  the built services as processes (startSystem, `npm run up`)
// test/tiers.test.ts checks each file does what its name says. `npm test` runs all three;
// `npm run test:unit` is the inner loop (`jest --selectProjects unit`).
// TypeScript is transformed by swc (no type check here: `turbo run build` type-checks with tsc);
// @sml/* imports resolve to sources so unit and integration tests never need a build, while
// system tests start the built services as processes.
const path = require('node:path');

const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const mapper = {
  '^@sml/proto$': path.join(__dirname, 'proto/index.js'),
  '^@sml/(core|bus|stats|sdk|cli|testkit|jobs-client|sources|federation)$': path.join(__dirname, 'packages/$1/src/index.ts'),
  '^@sml/stats/frames$': path.join(__dirname, 'packages/stats/src/frames.ts'),
  '^@sml/(gateway|jobs|projects|explore|encoders|streams)$': path.join(__dirname, 'services/$1/src/index.ts'),
};
const testTimeout = 60_000;

/** One tier: the files it matches, the others' names ignored. */
function tier(name, testMatch, ignore, extra = {}) {
  return {
    ...extra,
    displayName: name,
    testEnvironment: 'node',
    transform: { '^.+\\.tsx?$': swc },
    moduleNameMapper: mapper,
    roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test', '<rootDir>/clients'],
    testMatch,
    testPathIgnorePatterns: ['/node_modules/', '/dist/', ...ignore],
    testTimeout,
    // The tier's name reaches scripts/jest-tier.js, which forbids processes and sockets in `unit`.
    globals: { SML_TEST_TIER: name },
    setupFiles: ['<rootDir>/scripts/jest-setup.js'],
    // scripts/jest-alone.js: a file marked `@sml-run-alone` runs while no other integration or
    // system file does. Unit files stay out of that gate: they start no process and open no
    // socket, so beside a file that runs alone they only share the CPU (one worker's worth),
    // and the other worker is not left idle for the ≈ 160 s the alone files take.
    setupFilesAfterEnv: ['<rootDir>/scripts/jest-tier.js', ...(name === 'unit' ? [] : ['<rootDir>/scripts/jest-alone.js'])],
  };
}

module.exports = {
  testTimeout,
  projects: [
    tier('unit', ['**/test/**/*.test.ts'], ['\\.int\\.test\\.ts$', '\\.e2e\\.test\\.ts$']),
    tier('integration', ['**/test/**/*.int.test.ts'], []),
    // Shared systems (@sml/testkit sharedSystem): one per worker and profile, stopped at the end.
    tier('system', ['**/test/**/*.e2e.test.ts'], [], {
      globalSetup: '<rootDir>/scripts/jest-system-setup.js',
      globalTeardown: '<rootDir>/scripts/jest-system-teardown.js',
    }),
  ],
  reporters: ['<rootDir>/scripts/jest-summary-reporter.js', 'default'],
};
