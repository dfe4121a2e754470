/**
 * `npm start`: the whole platform on this machine, on embedded defaults. See README "Configuration".
 */
import { resolve } from 'node:path';
import { TEST_CLIENT } from '../../lib/auth/domain/static-clients.js';
import {
  type LocalCommandSettings,
  localCommandSettingsFromVariables,
  processVariables,
} from '../../lib/config/env.js';
import { ConfigurationError } from '../../lib/errors/index.js';
import { DataDirInUseError } from './data-dir-lock.js';
import { PortInUseError, type RunningPlatform, startPlatform } from './platform.js';
import { LOCAL_EXPORT_BUCKET, S3PortInUseError } from './s3-local.js';

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

// Its own settings through the platform's one parser (lib/config/env.ts); the rest goes to the services.
let settings: LocalCommandSettings;
try {
  settings = localCommandSettingsFromVariables();
} catch (err) {
  fail((err as Error).message);
}
const dataDir = resolve(settings.dataDir);

// A stop asked for while the platform starts is carried out once it has started (its processes must be
// stopped in order, not left behind); until then Ctrl+C and SIGTERM only mark it.
let platform: RunningPlatform | undefined;
let stopRequested: number | undefined;
let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (!platform) {
    stopRequested ??= code;
    return;
  }
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping...\n');
  await platform.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// Whatever started us (npm, a shell) may die of a signal without passing it on: `npm start` forwards SIGTERM to
// its shell, which dies and leaves us re-parented. A new parent means whoever ran us is gone: stop.
const parent = process.ppid;
const PARENT_CHECK_MS = 250;
setInterval(() => {
  if (process.ppid !== parent) void shutdown(0);
}, PARENT_CHECK_MS).unref();
// With the terminal or pipe gone, a last line written is not worth a crash.
process.stdout.on('error', () => undefined);

// Each step as it begins, with the seconds since the start: a first start takes a while (Java, bundling).
const startedAt = Date.now();
process.stdout.write(`starting the platform (data in ${dataDir})\n`);
try {
  platform = await startPlatform({
    port: settings.port,
    dataDir,
    s3Port: settings.s3Port,
    variables: processVariables(),
    ledgerWorkers: settings.ledgerWorkers,
    // A platform that serves for long: its emulator's steady state counts more than its first seconds.
    dynamoCompiler: 'optimizing',
    onProgress: (step) =>
      process.stdout.write(
        `  ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)} s  ${step}\n`,
      ),
  });
} catch (err) {
  if (stopRequested !== undefined) process.exit(stopRequested);
  if (
    err instanceof PortInUseError ||
    err instanceof S3PortInUseError ||
    err instanceof DataDirInUseError ||
    err instanceof ConfigurationError
  )
    fail(err.message);
  fail(err instanceof Error ? err.message : String(err));
}
platform.onFatal((reason) => {
  process.stderr.write(`error: ${reason}\n`);
  void shutdown(1);
});
if (stopRequested !== undefined) await shutdown(stopRequested);

process.stdout.write(
  [
    '',
    `platform ready at ${platform.baseUrl}`,
    `  health     ${platform.baseUrl}/_health`,
    `  discovery  ${platform.baseUrl}/api/auth/.well-known/openid-configuration`,
    `  api docs   ${platform.baseUrl}/docs`,
    `  console    ${platform.baseUrl}/console`,
    `  metrics    ${platform.baseUrl}/_metrics`,
    `  s3         ${platform.s3.endpoint} (emulator: bucket ${LOCAL_EXPORT_BUCKET}, objects in ${platform.s3.directory})`,
    // Since the process began (Node and tsx loading this file included): the wait a user actually had.
    `  start-up   ${process.uptime().toFixed(1)} s`,
    `  data       ${dataDir}`,
    `  ledger     ${
      platform.ledgerWorkers === 0
        ? 'embedded: group commit in this process (LEDGER_WORKERS=N for Lambda-like workers)'
        : `${platform.ledgerWorkers} worker processes and a writer (LEDGER_WORKERS)`
    }`,
    ...(settings.staticClients === undefined
      ? [
          `  test client (TEST ONLY): client_id=${TEST_CLIENT.id} client_secret=${TEST_CLIENT.secret}`,
        ]
      : [`  auth config ${settings.staticClients}`]),
    ...identityLines(platform),
    'press Ctrl+C to stop',
    '',
  ].join('\n'),
);

/** The local identity provider and its development accounts, named as test-only as the test client is. */
function identityLines(running: RunningPlatform): string[] {
  const idp = running.identityProvider;
  if (!idp) return [];
  return [
    `  identity   ${idp.issuer} (local OpenID provider, client_id=${idp.clientId})`,
    '  development accounts (TEST ONLY):',
    ...idp.accounts.map(
      (a) =>
        `    ${a.email} / ${a.password}${a.platformAdmin ? '  (admin of the default organization)' : ''}`,
    ),
  ];
}
