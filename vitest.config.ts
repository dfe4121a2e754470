import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Unit tests sit beside their code; test/ holds the integration, interop, local, browser, CLI and infra suites.
    include: [
      'test/**/*.test.ts',
      'lib/**/*.test.ts',
      'events/**/*.test.ts',
      'infra/**/*.test.ts',
      'console/**/*.test.ts',
    ],
    // One DynamoDB Local for the in-process suites, each file with its own tables (test/support/tables.ts); every
    // local platform runs on one of its own (test/support/platform.ts says why). The ledger's function bundles are
    // built once here for every local platform of the run.
    globalSetup: ['test/setup/dynamodb-local.ts'],
    env: { LOG_LEVEL: 'silent' },
    // Limits against hangs, not measures of speed (the bench measures that): wide, for a busy shared machine.
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // Two files at a time on the machines' two cores (each file may run a DynamoDB Local and worker processes).
    maxWorkers: 2,
  },
});
