/**
 * `npm start`: the whole platform on this machine, on embedded defaults. See README "Configuration".
 */
import { resolve } from 'node:path';
import { TEST_CLIENT } from '../../lib/auth/static-clients.js';
import { ConfigurationError } from '../../lib/errors/index.js';
import { ledgerWorkersFromEnv } from './lambda/ledger-workers.js';
import { PortInUseError, startPlatform, type RunningPlatform } from './platform.js';

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

const rawPort = process.env.PORT ?? '8080';
if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) fail(`PORT must be a port number (got "${rawPort}")`);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');

let platform: RunningPlatform;
try {
  const ledgerWorkers = ledgerWorkersFromEnv(process.env);
  platform = await startPlatform({ port: Number(rawPort), dataDir, env: process.env, ledgerWorkers });
} catch (err) {
  if (err instanceof PortInUseError || err instanceof ConfigurationError) fail(err.message);
  fail(err instanceof Error ? err.message : String(err));
}

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping...\n');
  await platform.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
platform.onFatal((reason) => {
  process.stderr.write(`error: ${reason}\n`);
  void shutdown(1);
});

const usesDefaultConfig = !process.env.AUTH_CONFIG && !process.env.AUTH_CONFIG_INLINE;
process.stdout.write(
  [
    '',
    `platform ready at ${platform.baseUrl}`,
    `  health     ${platform.baseUrl}/_health`,
    `  discovery  ${platform.baseUrl}/api/auth/.well-known/openid-configuration`,
    `  data       ${dataDir}`,
    ...(usesDefaultConfig
      ? [`  test client (TEST ONLY): client_id=${TEST_CLIENT.id} client_secret=${TEST_CLIENT.secret}`]
      : [`  auth config ${process.env.AUTH_CONFIG ?? 'AUTH_CONFIG_INLINE'}`]),
    'press Ctrl+C to stop',
    '',
  ].join('\n'),
);
