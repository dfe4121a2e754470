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
    // One DynamoDB Local for the whole run; each test file makes its own tables (see test/support/tables.ts).
    globalSetup: ['test/setup/dynamodb-local.ts'],
    env: { LOG_LEVEL: 'silent' },
    // Limits against hangs, not measures of speed (the bench measures that): the ledger suites take several times
    // longer beside each other on one shared DynamoDB Local than alone, so the limits leave room for it.
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // DynamoDB Local is one JVM on a 2-core machine, beside the local platforms' worker processes: two files at a
    // time (with three, the ledger suites ran 10-20x slower than alone).
    maxWorkers: 2,
  },
});
