/**
 * Auth on the local platform: the token endpoint under concurrent closed-loop clients (a stored client, the
 * production case: one BatchGetItem per token), and what bearer verification adds to an authenticated GET —
 * both as an HTTP difference (the ledger's unauthenticated `/_health` against its authenticated `/_info`, same
 * app, same gateway) and as the in-process cost of one `TokenVerifier.verify` with its key set cached.
 */
import type { RunningPlatform } from '../infra/local/platform.js';
import { TokenVerifier } from '../lib/bearer/token-verifier.js';
import { callJson, expectOk, postForm } from './http.js';
import { type LatencySummary, median, round, summarise } from './stats.js';

export interface AuthResult {
  source: string;
  tokenEndpoint: LatencySummary & {
    clients: number;
    durationS: number;
    requestsPerSec: number;
    failures: Record<string, number>;
  };
  verification: {
    httpWithoutAuth: LatencySummary;
    httpWithAuth: LatencySummary;
    /** p50 with − p50 without. */
    addedP50Ms: number;
    verifyInProcessMedianUs: number;
    verifyIterations: number;
  };
}

const TOKEN_CLIENTS = 8;
const GET_PAIRS = 400;
const VERIFY_ITERATIONS = 2_000;

export async function measureAuth(
  platform: RunningPlatform,
  adminToken: string,
  seconds: number,
): Promise<AuthResult> {
  const base = platform.baseUrl;
  const client = expectOk(
    await callJson(base, adminToken, 'POST', '/api/auth/clients', { name: 'bench-load' }),
    'create client',
  );
  const clientId = String(client.body.data!.id);
  const secret = expectOk(
    await callJson(base, adminToken, 'POST', `/api/auth/clients/${clientId}/secrets`, {
      name: 'bench',
    }),
    'create secret',
  );
  const clear = String(secret.body.data!.clear);
  expectOk(await postForm(base, clientId, clear), 'first token');

  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: TOKEN_CLIENTS }, async () => {
      while (performance.now() < end) {
        const res = await postForm(base, clientId, clear);
        if (res.status === 200) latencies.push(res.ms);
        else failures[res.status] = (failures[res.status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;

  // Alternate the two GETs, one at a time, so both see the same machine state.
  const token = (
    expectOk(await postForm(base, clientId, clear), 'token').body as { access_token: string }
  ).access_token;
  const without: number[] = [];
  const withAuth: number[] = [];
  for (let i = 0; i < 20; i++) await callJson(base, token, 'GET', '/api/ledger/_info');
  for (let i = 0; i < GET_PAIRS; i++) {
    without.push(
      expectOk(await callJson(base, undefined, 'GET', '/api/ledger/_health'), 'health').ms,
    );
    withAuth.push(expectOk(await callJson(base, token, 'GET', '/api/ledger/_info'), 'info').ms);
  }

  // The verifier alone, with the platform's issuer and audience and its published keys (loaded once).
  const jwks = expectOk(
    await callJson<{ keys: unknown[] }>(base, undefined, 'GET', '/api/auth/keys'),
    'jwks',
  ).body;
  const verifier = new TokenVerifier({
    issuer: `${platform.variables.PUBLIC_BASE_URL}/api/auth`,
    audience: String(platform.variables.TOKEN_AUDIENCE ?? platform.variables.PUBLIC_BASE_URL),
    loadKeys: async () => jwks as never,
  });
  for (let i = 0; i < 200; i++) await verifier.verify(token);
  const verifyUs: number[] = [];
  for (let i = 0; i < VERIFY_ITERATIONS; i++) {
    const t0 = performance.now();
    await verifier.verify(token);
    verifyUs.push((performance.now() - t0) * 1000);
  }
  const w = summarise(without);
  const a = summarise(withAuth);
  return {
    source: `HTTP to the local platform (${TOKEN_CLIENTS} closed-loop clients, ${seconds} s, stored client with one secret); ${GET_PAIRS} alternating GET pairs from one client; TokenVerifier.verify in-process (RS256), ${VERIFY_ITERATIONS} calls after warm-up`,
    tokenEndpoint: {
      ...summarise(latencies),
      clients: TOKEN_CLIENTS,
      durationS: round(elapsed, 1),
      requestsPerSec: round(latencies.length / elapsed, 1),
      failures,
    },
    verification: {
      httpWithoutAuth: w,
      httpWithAuth: a,
      addedP50Ms: round(a.p50Ms - w.p50Ms, 2),
      verifyInProcessMedianUs: round(median(verifyUs), 1),
      verifyIterations: VERIFY_ITERATIONS,
    },
  };
}
