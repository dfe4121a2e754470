/**
 * Data for the console's browser tests and its screenshots (`npm run console:screenshots`), written through
 * the public API as a user would: ledgers with exact big amounts, postings, metadata, a revert, and webhooks.
 */
import { parseJson, stringifyJson } from '../../lib/json/bigint-json.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';

/** 2^53 + 1: the first integer a JS number cannot hold (it would print ...992). */
export const BEYOND_2_53 = 9_007_199_254_740_993n;
/** 30 digits. */
export const HUGE = 123_456_789_012_345_678_901_234_567_890n;

export type Api = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: any }>;

/** A JSON caller with the local test client's token; big integers exact both ways. */
export async function platformApi(baseUrl: string): Promise<Api> {
  const res = await fetch(`${baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'local-dev',
      client_secret: 'local-dev-secret',
    }),
  });
  const { access_token: token } = (await res.json()) as { access_token: string };
  return async (method, path, body) => {
    const answer = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: stringifyJson(body) } : {}),
    });
    const text = await answer.text();
    return { status: answer.status, body: text ? parseJson(text) : undefined };
  };
}

async function expectStatus(
  api: Api,
  status: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<any> {
  const res = await api(method, path, body);
  if (res.status !== status)
    throw new Error(`${method} ${path}: ${res.status} ${stringifyJson(res.body ?? '')}`);
  return res.body;
}

const send = (source: string, destination: string, amount: bigint, asset: string) => ({
  source,
  destination,
  amount,
  asset,
});

/**
 * A small shop's ledger: five log entries of every kind but a deleted key — three transactions, a revert, and
 * account metadata. Balances afterwards:
 *   users:alice  USD/2 9007199254738993 (BEYOND_2_53 - 2000)   merchants:acme USD/2 1999   platform:fees USD/2 1
 *   treasury     BTC/8 HUGE                                     users:bob      EUR/2 0 (its 25000 reverted)
 */
export async function seedShopLedger(api: Api, ledger: string): Promise<void> {
  await expectStatus(api, 204, 'POST', `/api/ledger/v2/${ledger}`, {
    metadata: { owner: 'shop' },
  });
  const tx = `/api/ledger/v2/${ledger}/transactions`;
  await expectStatus(api, 200, 'POST', tx, {
    postings: [
      send('world', 'users:alice', BEYOND_2_53, 'USD/2'),
      send('world', 'treasury', HUGE, 'BTC/8'),
    ],
    metadata: { kind: 'funding', batch: '2026-11' },
    reference: 'funding-1',
  });
  await expectStatus(api, 200, 'POST', tx, {
    postings: [send('world', 'users:bob', 25_000n, 'EUR/2')],
    metadata: { kind: 'top-up' },
  });
  await expectStatus(api, 200, 'POST', tx, {
    postings: [
      send('users:alice', 'merchants:acme', 1_999n, 'USD/2'),
      send('users:alice', 'platform:fees', 1n, 'USD/2'),
    ],
    metadata: { order: 'A-1001', customer: 'alice' },
    reference: 'order-A-1001',
  });
  await expectStatus(api, 201, 'POST', `${tx}/2/revert`);
  await expectStatus(api, 204, 'POST', `/api/ledger/v2/${ledger}/accounts/users:alice/metadata`, {
    tier: 'gold',
  });
}

/**
 * A ledger of `count` one-posting transactions (through `_bulk`, 25 a request: each request well within the ledger
 * function's 15 s even beside the full suite): many pages of everything.
 */
export async function seedBusyLedger(
  api: Api,
  ledger: string,
  count: number,
  /** Transactions per request: a bulk's share one commit, and so one log page. */
  perRequest = 25,
): Promise<void> {
  await expectStatus(api, 204, 'POST', `/api/ledger/v2/${ledger}`);
  for (let first = 1; first <= count; first += perRequest) {
    const elements = [];
    for (let n = first; n < Math.min(first + perRequest, count + 1); n++)
      elements.push({
        action: 'CREATE_TRANSACTION',
        data: {
          postings: [
            send('world', `users:${String(n).padStart(3, '0')}`, BigInt(n) * 100n, 'USD/2'),
          ],
          metadata: { n: String(n) },
        },
      });
    await expectStatus(api, 200, 'POST', `/api/ledger/v2/${ledger}/_bulk`, elements);
  }
}

/** A webhook configuration for committed transactions, pointed at `endpoint`. */
export async function seedWebhook(api: Api, endpoint: string, name: string): Promise<string> {
  const body = await expectStatus(api, 200, 'POST', '/api/webhooks/configs', {
    endpoint,
    eventTypes: ['ledger.committed_transactions'],
    name,
  });
  return body.data.id as string;
}

/** Polls the deliveries of a config until `count` have finished (not pending); returns them. */
export async function finishedDeliveries(
  api: Api,
  configId: string,
  count: number,
  timeoutMs = WAIT_LIMIT_MS,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api('GET', `/api/webhooks/deliveries?configId=${configId}&pageSize=100`);
    const done = (body?.cursor?.data ?? []).filter((d: any) => d.status !== 'pending');
    if (done.length >= count) return done;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${count} finished deliveries`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A card issuer's ledger with holds (PENDING_TRANSFERS) in every state, made in this order: one posted in part
 * (1,000 of 2,500 posted by a transaction, 1,500 remaining and held), one voided, one that expired by itself (the
 * platform's hold sweeper released it), and an open hold of BEYOND_2_53 minor units expiring in a day. Answers the
 * holds' ids in that order (each the log id of the entry that created it).
 */
export async function seedHoldsLedger(api: Api, ledger: string): Promise<bigint[]> {
  await expectStatus(api, 204, 'POST', `/api/ledger/v2/${ledger}`, {
    features: { PENDING_TRANSFERS: 'ON' },
  });
  const base = `/api/ledger/v2/${ledger}`;
  await expectStatus(api, 200, 'POST', `${base}/transactions`, {
    postings: [send('world', 'cards:1', HUGE, 'USD/2')],
  });
  const hold = async (amount: bigint, extra: Record<string, unknown>) =>
    (
      await expectStatus(api, 201, 'POST', `${base}/pending`, {
        postings: [send('cards:1', 'merchants:cafe', amount, 'USD/2')],
        ...extra,
      })
    ).data.id as bigint;
  const partial = await hold(2_500n, { metadata: { order: 'A-1' } });
  await expectStatus(api, 200, 'POST', `${base}/pending/${partial}/post`, { amounts: [1_000n] });
  const voided = await hold(700n, {});
  await expectStatus(api, 200, 'POST', `${base}/pending/${voided}/void`);
  const expired = await hold(300n, { timeout: 1 });
  const open = await hold(BEYOND_2_53, { timeout: 86_400 });
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (
    (await expectStatus(api, 200, 'GET', `${base}/pending/${expired}`)).data.status !== 'EXPIRED'
  ) {
    if (Date.now() > deadline) throw new Error(`hold ${expired} of ${ledger} did not expire`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return [partial, voided, expired, open];
}
