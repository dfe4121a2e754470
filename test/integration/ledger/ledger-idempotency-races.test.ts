/**
 * Idempotency-Key under concurrency (docs/api.md §3.2: one key, one commit): parallel POSTs of one key against the
 * real writer over DynamoDB Local, with the writer's real (jittered) backoff. Whatever the interleaving,
 * exactly one request commits; a request with the winner's body gets the winner's response, byte for byte,
 * marked `Idempotency-Hit: true`; a request with another body gets 400 VALIDATION; nothing else is written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, ledgerEventsOf, stringify } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

const N = 8;
const ROUNDS = 3;

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

const send = (source: string, destination: string, amount: bigint, asset = 'USD/2') => ({
  source,
  destination,
  amount,
  asset,
});
const tx = (ledger: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/v2/${ledger}/transactions`, body, headers);

async function fresh(): Promise<string> {
  const name = `ik${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`);
  expect(res.status, res.text).toBe(204);
  return name;
}

async function eventCount(ledger: string): Promise<number> {
  return (await ledgerEventsOf(runtime, ledger)).length;
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('Idempotency-Key races', () => {
  it(`${N} parallel POSTs with one key and one body commit exactly once and all answer the same`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ledger = await fresh();
      // A committed transaction first, so the raced one is id 2 and moves an existing balance.
      expect((await tx(ledger, { postings: [send('world', 'wallet', 100n)] })).status).toBe(200);
      const body = {
        postings: [send('wallet', 'shop', 30n), send('world', 'fees', 1n)],
        metadata: { round: String(round) },
      };

      const responses = await Promise.all(
        Array.from({ length: N }, () => tx(ledger, body, { 'Idempotency-Key': `same-${round}` })),
      );

      const summary = responses
        .map((r) => `${r.status} hit=${r.headers.get('idempotency-hit')} ${r.text.slice(0, 120)}`)
        .join('\n');
      expect(
        responses.every((r) => r.status === 200),
        summary,
      ).toBe(true);
      expect(new Set(responses.map((r) => r.text)).size, summary).toBe(1);
      expect(
        responses.filter((r) => r.headers.get('idempotency-hit') === null),
        summary,
      ).toHaveLength(1);
      expect(
        responses.filter((r) => r.headers.get('idempotency-hit') === 'true'),
        summary,
      ).toHaveLength(N - 1);
      expect(responses[0]!.body.data.id).toBe(2n);
      expect(responses[0]!.body.data.postCommitVolumes.wallet['USD/2'].balance).toBe(70n);

      expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(2n);
      expect((await call('GET', `/v2/${ledger}/transactions/3`)).status).toBe(404);
      expect(await eventCount(ledger)).toBe(2);
      // The balance moved once, not once per request.
      const probe = await tx(ledger, { postings: [send('world', 'wallet', 0n)] });
      expect(probe.body.data.id).toBe(3n);
      expect(probe.body.data.postCommitVolumes.wallet['USD/2'].balance).toBe(70n);
    }
  });

  it(`${N} parallel POSTs with one key and different bodies: one commits, the rest replay only with the winner's body`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ledger = await fresh();
      // Three distinct bodies among the N requests, so some requests share the winner's body and some do not.
      const bodies = Array.from({ length: N }, (_, i) => ({
        postings: [send('world', 'a', BigInt((i % 3) + 1))],
      }));

      const responses = await Promise.all(
        bodies.map((body) => tx(ledger, body, { 'Idempotency-Key': `mixed-${round}` })),
      );

      const summary = responses
        .map(
          (r, i) =>
            `#${i} amount ${(i % 3) + 1}: ${r.status} hit=${r.headers.get('idempotency-hit')} ${r.text.slice(0, 120)}`,
        )
        .join('\n');
      const winners = responses
        .map((r, i) => ({ r, i }))
        .filter(({ r }) => r.status === 200 && r.headers.get('idempotency-hit') === null);
      expect(winners, summary).toHaveLength(1);
      const { r: winner, i: w } = winners[0]!;
      expect(winner.body.data.id).toBe(1n);
      expect(winner.body.data.postings).toEqual(bodies[w]!.postings);
      const sameBody = (i: number) => stringify(bodies[i]) === stringify(bodies[w]);

      responses.forEach((r, i) => {
        if (i === w) return;
        if (sameBody(i)) {
          expect(r.status, summary).toBe(200);
          expect(r.headers.get('idempotency-hit'), summary).toBe('true');
          expect(r.text, summary).toBe(winner.text);
        } else {
          expect(r.status, summary).toBe(400);
          expect(r.body.errorCode, summary).toBe('VALIDATION');
          expect(r.body.errorMessage, summary).toContain('Idempotency-Key');
          expect(r.headers.get('idempotency-hit'), summary).toBeNull();
        }
      });

      expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(1n);
      expect(await eventCount(ledger)).toBe(1);
      const probe = await tx(ledger, { postings: [send('world', 'a', 0n)] });
      expect(probe.body.data.id).toBe(2n);
      expect(probe.body.data.postCommitVolumes.a['USD/2'].balance).toBe(
        bodies[w]!.postings[0]!.amount,
      );
    }
  });
});
