import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { HOOK_LIMIT_MS, TEST_LIMIT_MS, UNIT_TEST_LIMIT_MS } from './test/support/time-scale.js';

/**
 * The unit tests: no DynamoDB, no platform, no process of their own to wait for (`npm run test:unit`). They sit
 * beside their code; under test/, the architecture check, the property tests of pure code and the docs' shell
 * blocks. Their project has no global setup, so a unit test that reached for the run's DynamoDB Local would find
 * none and fail.
 */
const UNIT = [
  'lib/**/*.test.ts',
  'events/**/*.test.ts',
  'infra/**/*.test.ts',
  'console/**/*.test.ts',
  'test/architecture/**/*.test.ts',
  'test/property/**/*.test.ts',
  'test/docs/**/*.test.ts',
];

/**
 * The suites that run a whole local platform (its processes, pollers and timers) or `npm start` itself, and the few
 * others that need one. The files of a worker share its loaded modules (about 2 s of imports a file saved): each
 * stops what it started, and none counts what is process-wide, except ISOLATED's.
 */
const PLATFORM = [
  'test/local/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/integration/platform/platform-local.test.ts',
  'test/integration/payments/payments-platform.test.ts',
  'test/interop/oauth-clients.test.ts',
  'test/interop/openapi-responses.test.ts',
];

/**
 * Each file in a fresh module registry of its own: the two that read the platform's metrics registry (one per
 * process: `/_metrics` counts exactly what the file did), the one that replaces a module (`vi.mock`), and the
 * compat probe: the official SDK checks each answer is an `instanceof` the global `Response` it saw when it was
 * loaded, and a platform started earlier in the same process has replaced that global (its Node server's own
 * Response class), so every answer would be judged malformed (seen in a full run).
 */
const ISOLATED = [
  'test/local/metrics.test.ts',
  'test/local/guides.test.ts',
  'test/local/compat.test.ts',
  'test/integration/auth/token-throttle.test.ts',
];

/**
 * The CLI suites: they run `platform` as a subprocess against the run's shared platform (two start their own), mock
 * nothing and count no platform's metrics, so the files of a worker share its loaded modules (about 2 s of imports
 * a file saved) instead of each importing them again.
 */
const CLI = 'test/cli/**/*.test.ts';

/**
 * The order the projects' files run in, from one queue of the workers: the whole-platform suites first (the longest
 * files of the run, so none of them starts near its end), the CLI suites after the in-process ones (their shared
 * platform starts in the background meanwhile), the unit tests last (many short files that fill the workers' last
 * gaps). Within a project, vitest's own order (the longest first, from the last run's times); a project's files
 * stay together, so a worker that runs them without isolation keeps its loaded modules from one file to the next.
 */
const PROJECT_ORDER = ['isolated', 'platform', 'integration', 'cli', 'unit'];
class ProjectsInOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => PROJECT_ORDER.indexOf(file.project.name);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// One DynamoDB Local for the in-process suites, each file with its own tables (test/support/tables.ts), and one
// for the local platforms, a database each (test/support/platform.ts says why). The ledger's function bundles are
// built once for every local platform of the run. The projects below share the one set-up (its module says how).
const GLOBAL_SETUP = ['test/setup/dynamodb-local.ts'];

export default defineConfig({
  test: {
    env: { LOG_LEVEL: 'silent' },
    // Limits against hangs, not measures of speed (the bench measures that): every one from TEST_TIME_SCALE.
    testTimeout: TEST_LIMIT_MS,
    hookTimeout: HOOK_LIMIT_MS,
    // Two files at a time on the machines' two cores (each file may run a DynamoDB Local and worker processes).
    maxWorkers: 2,
    sequence: { sequencer: ProjectsInOrder },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          testTimeout: UNIT_TEST_LIMIT_MS,
          // Pure code: the files of a worker share its loaded modules instead of importing them again each.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // The in-process integration, interop and infrastructure suites: each file has tables (or a stack) of its
          // own, so the files of a worker share its loaded modules instead of importing the services again each.
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT, ...PLATFORM, ...ISOLATED, CLI],
          isolate: false,
          globalSetup: GLOBAL_SETUP,
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          include: [CLI],
          isolate: false,
          // And one default platform shared by the files that need nothing else of one.
          globalSetup: [...GLOBAL_SETUP, 'test/setup/shared-platform.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'platform',
          include: PLATFORM,
          exclude: [...configDefaults.exclude, ...UNIT, ...ISOLATED],
          isolate: false,
          globalSetup: GLOBAL_SETUP,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          globalSetup: GLOBAL_SETUP,
        },
      },
    ],
  },
});
