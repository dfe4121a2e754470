import type { AddressInfo } from 'node:net';
import { SDK } from '@formance/formance-sdk';
import { serve } from '@hono/node-server';
import { createGateway, type FetchHandler } from '../../infra/local/gateway.js';
import { DEFAULT_AUTH_CONFIG } from '../../infra/local/platform.js';
import { assembleLedgerApp } from '../../lib/assembly/ledger-app.js';
import { assemblePlatformApp } from '../../lib/assembly/platform-app.js';
import { createAuthApp } from '../../lib/auth/app.js';
import { loadAuthConfig } from '../../lib/auth/domain/static-clients.js';
import { staticClientsSource } from '../../lib/config/env.js';
import { EmbeddedGroupCommit } from '../../lib/ledger/write/embedded.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../lib/payments/app.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { createWebhooksApp } from '../../lib/webhooks/app.js';
import { testTables } from './tables.js';

export interface InProcessPlatform {
  baseUrl: string;
  /** Its runtime (tables, clients): for suites that also run a worker's function over the same tables. */
  runtime: ServiceRuntime;
  stop(): Promise<void>;
}

/**
 * The services of `npm start` (the default, embedded ledger) behind its gateway, in this process, on a loopback
 * port and fresh tables of the run's DynamoDB Local: for suites that only call the API. No JVM, worker process,
 * stream poller or timer of its own, so nothing happens in the background: a suite that waits for a delivery or a
 * worker starts the whole platform (test/support/platform.ts).
 */
export async function startInProcessPlatform(): Promise<InProcessPlatform> {
  let handler: FetchHandler = () => new Response('starting', { status: 503 });
  const server = serve({ fetch: (request) => handler(request), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { runtime } = await testTables({ PUBLIC_BASE_URL: baseUrl });
  const documents = generatedDocuments;
  const authConfig = loadAuthConfig(
    staticClientsSource({ AUTH_CONFIG: DEFAULT_AUTH_CONFIG }),
    'local',
  );
  const ledger = assembleLedgerApp(runtime, {
    documents,
    embedded: { engine: EmbeddedGroupCommit, logger: runtime.logger },
  });
  const gateway = createGateway(
    {
      auth: createAuthApp({ runtime, documents, authConfig }),
      ledger,
      payments: createPaymentsApp(runtime, { documents }),
      webhooks: createWebhooksApp(runtime, { documents }),
      platform: assemblePlatformApp({ runtime, documents }),
    },
    async () => ({ status: 'ok', components: {} }),
  );
  handler = (request) => gateway.fetch(request);
  return {
    baseUrl,
    runtime,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // The SDK's and fetch's keep-alive connections would hold the close open until they time out.
        (server as import('node:http').Server).closeAllConnections();
        runtime.doc.destroy();
      }),
  };
}

/** The in-process platform and the official SDK pointed at it, authenticating as the local test client. */
export async function startInProcessSdkPlatform(): Promise<{
  platform: InProcessPlatform;
  sdk: SDK;
}> {
  const platform = await startInProcessPlatform();
  const sdk = new SDK({
    serverURL: platform.baseUrl,
    security: {
      clientID: 'local-dev',
      clientSecret: 'local-dev-secret',
      tokenURL: `${platform.baseUrl}/api/auth/oauth/token`,
    },
  });
  return { platform, sdk };
}
