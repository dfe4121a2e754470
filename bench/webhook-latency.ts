/**
 * Webhooks end to end on the local platform: a receiver on 127.0.0.1, one active config for
 * `ledger.committed_transactions`, then (1) transactions committed one at a time, each timed from its commit's
 * HTTP answer to the arrival of its first delivery (the path: events table → stream poller → dispatch → SQS →
 * queue poller → deliver → signed POST), and (2) a burst committed by several clients at once, for deliveries/s.
 */
import type { RunningPlatform } from '../infra/local/platform.js';
import { callJson, expectOk, fundingTransaction } from './http.js';
import { type LatencySummary, round, sleep, summarise } from './stats.js';
import { type Arrival, startWebhookReceiver } from './webhook-receiver.js';

export const MAX_P50_DELIVERY_MS = 1_000;
const SEQUENTIAL = 40;
const GAP_MS = 150;
const BURST = 200;
const BURST_CLIENTS = 8;

export interface WebhookResult {
  source: string;
  latency: LatencySummary & { ok: boolean; undelivered: number };
  burst: {
    transactions: number;
    clients: number;
    delivered: number;
    /** Seconds from the first commit sent to the last commit answered. */
    commitS: number;
    commitsPerSec: number;
    /** Seconds from the first commit sent to the last delivery's arrival. */
    drainS: number;
    deliveriesPerSec: number;
    /** Seconds between the last commit's answer and the last delivery. */
    lagAfterLastCommitS: number;
    /** Deliveries that arrived after the last commit, per second until the last one: the backlog's drain rate. */
    drainAfterCommitsPerSec: number | null;
  };
  /** Every delivery carried the Standard Webhooks headers. */
  signedHeaders: boolean;
}

/** "<ledger>/<transaction id>" of a ledger.committed_transactions delivery. */
function keyOf(arrival: Arrival): string | undefined {
  try {
    const envelope = JSON.parse(arrival.body) as {
      payload?: { ledger?: string; transactions?: Array<{ id?: unknown }> };
    };
    return `${envelope.payload?.ledger}/${String(envelope.payload?.transactions?.[0]?.id)}`;
  } catch {
    return undefined;
  }
}

export async function measureWebhooks(
  platform: RunningPlatform,
  token: string,
): Promise<WebhookResult> {
  const base = platform.baseUrl;
  const receiver = await startWebhookReceiver();
  const firstArrival = new Map<string, number>();
  receiver.onArrival((a) => {
    const key = keyOf(a);
    if (key && !firstArrival.has(key)) firstArrival.set(key, a.at);
  });
  let configId: string | undefined;
  const waitFor = async (keys: string[], timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline && keys.some((k) => !firstArrival.has(k))) await sleep(20);
  };
  try {
    const config = expectOk(
      await callJson(base, token, 'POST', '/api/webhooks/configs', {
        endpoint: receiver.url,
        eventTypes: ['ledger.committed_transactions'],
        name: 'bench',
      }),
      'create webhook config',
    );
    configId = String(config.body.data!.id);
    // (1) One at a time: commit, note when the answer came, wait a little, next.
    expectOk(await callJson(base, token, 'POST', '/api/ledger/v2/hooks'), 'create ledger');
    const committedAt = new Map<string, number>();
    for (let i = 0; i < SEQUENTIAL; i++) {
      const res = expectOk(
        await callJson(
          base,
          token,
          'POST',
          '/api/ledger/v2/hooks/transactions',
          fundingTransaction('users:hook'),
        ),
        'commit',
      );
      committedAt.set(`hooks/${String(res.body.data!.id)}`, performance.now());
      await sleep(GAP_MS);
    }
    await waitFor([...committedAt.keys()], 30_000);
    const latencies = [...committedAt]
      .filter(([k]) => firstArrival.has(k))
      .map(([k, t]) => firstArrival.get(k)! - t);
    const latency = summarise(latencies);

    // (2) A burst over several ledgers (so the ledgers' own serialisation is not what is measured).
    const ledgers = Array.from({ length: BURST_CLIENTS }, (_, i) => `hooks-burst-${i}`);
    for (const l of ledgers)
      expectOk(await callJson(base, token, 'POST', `/api/ledger/v2/${l}`), 'create ledger');
    const keys: string[] = [];
    const burstStart = performance.now();
    let next = 0;
    await Promise.all(
      ledgers.map(async (l) => {
        while (next < BURST) {
          next++;
          const res = expectOk(
            await callJson(
              base,
              token,
              'POST',
              `/api/ledger/v2/${l}/transactions`,
              fundingTransaction('users:burst'),
            ),
            'commit',
          );
          keys.push(`${l}/${String(res.body.data!.id)}`);
        }
      }),
    );
    const commitEnd = performance.now();
    await waitFor(keys, 120_000);
    const arrivals = keys.filter((k) => firstArrival.has(k)).map((k) => firstArrival.get(k)!);
    const lastArrival = Math.max(...arrivals);
    const drain = (lastArrival - burstStart) / 1000;
    const commitS = (commitEnd - burstStart) / 1000;
    return {
      source: `HTTP to the local platform with its pollers (stream poller idle interval 200 ms, queue long poll 1 s, batches of 10); receiver on 127.0.0.1 in the same process; ${SEQUENTIAL} commits ${GAP_MS} ms apart, then ${BURST} commits from ${BURST_CLIENTS} clients`,
      latency: {
        ...latency,
        ok: latency.p50Ms <= MAX_P50_DELIVERY_MS,
        undelivered: SEQUENTIAL - latencies.length,
      },
      burst: {
        transactions: keys.length,
        clients: BURST_CLIENTS,
        delivered: arrivals.length,
        commitS: round(commitS, 2),
        commitsPerSec: round(keys.length / commitS, 1),
        drainS: round(drain, 2),
        deliveriesPerSec: round(arrivals.length / drain, 1),
        lagAfterLastCommitS: round((lastArrival - commitEnd) / 1000, 2),
        drainAfterCommitsPerSec:
          lastArrival - commitEnd > 1000
            ? round(
                arrivals.filter((a) => a > commitEnd).length / ((lastArrival - commitEnd) / 1000),
                1,
              )
            : null,
      },
      signedHeaders: receiver.arrivals.every(
        (a) =>
          typeof a.headers['webhook-signature'] === 'string' &&
          typeof a.headers['service-webhook-signature'] === 'string',
      ),
    };
  } finally {
    // Later benchmarks commit many transactions: they must not queue deliveries to a receiver that is gone.
    if (configId)
      await callJson(base, token, 'PUT', `/api/webhooks/configs/${configId}/deactivate`);
    await receiver.close();
  }
}
