/**
 * A steady load on a running platform, for checking the suites while a second `npm start` serves traffic on the
 * same machine (docs/decisions/testing.md): `clients` closed-loop clients, each posting a one-posting ledger
 * transaction, waiting for its answer, pausing `pauseMs`, and posting the next, until stopped (Ctrl+C). Every 10 s
 * it prints one line: the seconds since it started, the transactions committed in those 10 s (per second) and the
 * answers other than 200 by status.
 *
 *   npx tsx test/support/steady-load.ts [baseUrl=http://127.0.0.1:8090] [clients=2] [pauseMs=20]
 */

/** A token of the local test client (as test/support/platform.ts asks, without loading vitest or the platform). */
async function testClientToken({ baseUrl }: { baseUrl: string }): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=local-dev&client_secret=local-dev-secret',
  });
  if (res.status !== 200)
    throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

const [baseUrl = 'http://127.0.0.1:8090', clientsArg = '2', pauseArg = '20'] =
  process.argv.slice(2);
const clients = Number(clientsArg);
const pauseMs = Number(pauseArg);
const ledger = `steady-load-${Date.now().toString(36)}`;

let token = await testClientToken({ baseUrl });
// Tokens expire: a fresh one every five minutes is well inside any lifetime the platform gives.
const renew = setInterval(async () => {
  token = await testClientToken({ baseUrl });
}, 5 * 60_000);

const created = await fetch(`${baseUrl}/api/ledger/v2/${ledger}`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}` },
});
if (created.status !== 204 && created.status !== 200)
  throw new Error(`creating ledger ${ledger}: ${created.status} ${await created.text()}`);

let committed = 0;
const failures = new Map<number, number>();
let running = true;
const started = Date.now();

async function client(index: number): Promise<void> {
  while (running) {
    const res = await fetch(`${baseUrl}/api/ledger/v2/${ledger}/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        postings: [{ source: 'world', destination: `users:${index}`, amount: 100, asset: 'USD/2' }],
      }),
    }).catch(() => undefined);
    await res?.arrayBuffer();
    const status = res?.status ?? 0;
    if (status === 200) committed++;
    else failures.set(status, (failures.get(status) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

const report = setInterval(() => {
  const failed = [...failures].map(([status, n]) => `${status}:${n}`).join(' ') || 'none';
  console.log(
    `${Math.round((Date.now() - started) / 1000)} s  committed ${committed} (${(committed / 10).toFixed(1)}/s)  other answers ${failed}`,
  );
  committed = 0;
  failures.clear();
}, 10_000);

process.once('SIGINT', () => {
  running = false;
  clearInterval(report);
  clearInterval(renew);
});
await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
