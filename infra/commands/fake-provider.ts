import { startFakeProvider } from '../local/fake-provider/server.js';

/**
 * `npm run fake-provider [-- --port 8090 --api-key demo-key]`: a fake payment provider on 127.0.0.1 speaking the
 * generic connector API, for the payments walkthrough (docs/guides/payments.md). Stops with Ctrl-C.
 */
function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

const port = Number(option('port', '8090'));
const apiKey = option('api-key', 'demo-key');
const provider = await startFakeProvider({ apiKey, port });
console.log(`fake provider on ${provider.url} (API key ${apiKey})`);
process.on('SIGINT', () => void provider.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void provider.close().then(() => process.exit(0)));
